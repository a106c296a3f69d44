// Helpers that start the fixture MCP servers of test/fixtures/mcp as real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mcpServerSchema, type McpServerConfig } from '../../src/config/schema.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/mcp/', import.meta.url));
export const STDIO_SERVER = `${FIXTURES}fixture-server.mjs`;
export const HTTP_LAUNCHER = `${FIXTURES}http-launcher.mjs`;

for (const file of [STDIO_SERVER, HTTP_LAUNCHER]) {
  if (!existsSync(file)) throw new Error(`fixture MCP server missing: ${file}`);
}

/** A validated stdio server config running the fixture server with `node`. */
export function stdioConfig(id: string, extra: { args?: string[]; timeoutMs?: number; description?: string; trustAnnotations?: boolean } = {}): McpServerConfig {
  return mcpServerSchema.parse({
    id,
    transport: 'stdio',
    command: process.execPath,
    args: [STDIO_SERVER, '--name', id, ...(extra.args ?? [])],
    timeoutMs: extra.timeoutMs ?? 5_000,
    description: extra.description,
    trustAnnotations: extra.trustAnnotations,
  });
}

export interface HttpFixture {
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the HTTP/SSE launcher on 127.0.0.1 and waits for the port it prints. */
export async function startHttpFixture(args: string[] = []): Promise<HttpFixture> {
  const child = spawn(process.execPath, [HTTP_LAUNCHER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`http launcher exited (${code}) before printing a port: ${stderr}`)));
  });
  return {
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function httpConfig(
  id: string,
  port: number,
  transport: 'http' | 'sse',
  auth?: { type: 'bearer'; token: string },
): McpServerConfig {
  return mcpServerSchema.parse({
    id,
    transport,
    url: `http://127.0.0.1:${port}/${transport === 'http' ? 'mcp' : 'sse'}`,
    auth: auth ?? { type: 'none' },
    timeoutMs: 5_000,
  });
}
