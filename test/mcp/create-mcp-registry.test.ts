import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createMcpRegistry } from '../../src/mcp/create-mcp-registry.js';
import type { McpRegistry } from '../../src/mcp/mcp-registry.js';
import type { McpRegistryEvent } from '../../src/mcp/mcp-registry-types.js';
import { stdioConfig } from './fixture-servers.js';
import { tempDir } from './registry-helpers.js';

let registry: McpRegistry | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await registry?.close();
  cleanup?.();
});

describe('createMcpRegistry', () => {
  it('returns before a slow config server is up, and connects it in the background', async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    const config = configSchema.parse({
      mcp: { servers: [stdioConfig('sluggish', { args: ['--start-delay', '1500'] }), stdioConfig('quick')] },
    });
    const events: McpRegistryEvent[] = [];
    const indexPath = join(temp.dir, 'index.db');
    registry = await createMcpRegistry({ config, indexPath, onEvent: (event) => events.push(event) });
    expect(registry.servers.get('sluggish')?.status).toBe('connecting');
    await registry.idle();
    expect(registry.servers.list().map((server) => [server.id, server.status])).toEqual([
      ['sluggish', 'connected'],
      ['quick', 'connected'],
    ]);
    expect(registry.tools.get('mcp__sluggish__echo')).toBeDefined();
    expect(events.filter((event) => event.type === 'catalog-indexed').map((event) => event.serverId).sort()).toEqual(['quick', 'sluggish']);
    expect(existsSync(indexPath)).toBe(true);
  });

  it('skips disabled servers', async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    const config = configSchema.parse({ mcp: { servers: [{ ...stdioConfig('off'), enabled: false }] } });
    registry = await createMcpRegistry({ config, indexPath: join(temp.dir, 'index.db') });
    await registry.idle();
    expect(registry.servers.list()).toEqual([]);
  });
});
