// Starts servers of the recorded real MCP catalog (bench/data/real-mcp-catalog) as real fixture
// MCP processes over stdio, each serving its recorded tools verbatim (name, title, description,
// inputSchema), so discovery tests see real tool text: near-duplicates, long descriptions.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../src/config/schema.js';
import { stdioConfig } from './fixture-servers.js';

const CATALOG = fileURLToPath(new URL('../../bench/data/real-mcp-catalog/catalog.json', import.meta.url));

interface RecordedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

const recorded = new Map(
  (JSON.parse(readFileSync(CATALOG, 'utf8')) as { servers: Array<{ id: string; tools: RecordedTool[] | null }> }).servers.map((server) => [server.id, server.tools ?? []]),
);

/** Fixture-server configs for the named recorded servers (plus any extra catalogs), catalog files written to `dir`. */
export function realCatalogConfigs(dir: string, ids: readonly string[], extra: Record<string, RecordedTool[]> = {}): McpServerConfig[] {
  const catalogs: Array<[string, RecordedTool[]]> = [
    ...ids.map((id): [string, RecordedTool[]] => {
      const tools = recorded.get(id);
      if (!tools) throw new Error(`no recorded server "${id}" in ${CATALOG}`);
      return [id, tools];
    }),
    ...Object.entries(extra),
  ];
  return catalogs.map(([id, tools]) => {
    const file = join(dir, `${id}.json`);
    writeFileSync(file, JSON.stringify(tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema }))));
    return stdioConfig(id, { args: ['--catalog', file, '--page-size', '100'], timeoutMs: 20_000 });
  });
}
