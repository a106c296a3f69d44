import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient, type McpLogEntry } from '../../src/mcp/mcp-client.js';
import { mcpServerSchema } from '../../src/config/schema.js';
import type { SpawnStdioServer, StdioServerCommand } from '../../src/mcp/spawned-stdio-transport.js';
import { stdioConfig } from './fixture-servers.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A stdio server started by someone else (the whole-agent launcher, through `spawnStdio`):
 * the client speaks MCP over the pipes it is handed, reports the server's stderr, reconnects
 * through the same spawner, and says why a server that could not run did not connect.
 * The spawner here is a plain child process; the launcher's sandboxed one is in
 * test/e2e/whole-agent-mcp-broker.test.ts.
 */
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function childSpawner(started: StdioServerCommand[], running: Set<number>): SpawnStdioServer {
  return (command, handlers) => {
    started.push(command);
    const child = spawn(command.command, [...command.args], { env: { PATH: process.env.PATH, ...command.env }, stdio: 'pipe' });
    if (child.pid) running.add(child.pid);
    child.stdout.on('data', handlers.onStdout);
    child.stderr.on('data', handlers.onStderr);
    child.once('close', (code, signal) => {
      if (child.pid) running.delete(child.pid);
      handlers.onExit({ code, signal });
    });
    return { write: (chunk) => child.stdin.write(chunk), kill: () => child.kill('SIGTERM') };
  };
}

describe('SpawnedStdioTransport (stdio servers started through spawnStdio)', () => {
  it('lists and calls tools over the handed pipes, passes only the config env, relays stderr; close stops the program', async () => {
    const started: StdioServerCommand[] = [];
    const running = new Set<number>();
    const logs: McpLogEntry[] = [];
    const config = { ...stdioConfig('spawned'), env: { FIXTURE_SETTING: 'x' } };
    const client = new McpClient(config, { spawnStdio: childSpawner(started, running), onLog: (entry) => logs.push(entry) });
    clients.push(client);
    expect((await client.listTools()).map((tool) => tool.name)).toContain('echo');
    expect((await client.callTool('add', { a: 2, b: 5 })).content).toEqual([{ type: 'text', text: '7' }]);
    expect(started).toEqual([{ serverId: 'spawned', command: config.command, args: config.args, env: { FIXTURE_SETTING: 'x' } }]);
    await waitFor(() => logs.some((entry) => entry.level === 'stderr' && String(entry.data).includes('fixture server ready')), 10_000, 'the stderr line');
    expect(running.size).toBe(1);
    await client.close();
    await waitFor(() => running.size === 0, 10_000, 'the program to end');
  });

  it('a program that could not run fails the connect with connect_failed naming the reason', async () => {
    const config = mcpServerSchema.parse({ id: 'refused', transport: 'stdio', command: 'anything', timeoutMs: 3_000 });
    const refuse: SpawnStdioServer = (_command, handlers) => {
      queueMicrotask(() => handlers.onExit({ code: null, signal: null, error: 'env.A-B: invalid name' }));
      return { write: () => undefined, kill: () => undefined };
    };
    const client = new McpClient(config, { spawnStdio: refuse, reconnect: { maxAttempts: 0 } });
    clients.push(client);
    await expect(client.connect()).rejects.toMatchObject({ code: 'connect_failed', serverId: 'refused', message: expect.stringContaining('env.A-B: invalid name') });
  });
});
