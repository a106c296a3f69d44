import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI } from '../../helpers/acp-cli.js';
import { runtimeExecutable, type RuntimeName } from '../../helpers/runtimes.js';
import { trustProjectConfig } from '../../helpers/trust-config.js';

export function project(): string {
  return mkdtempSync(join(tmpdir(), 'plaited-mcp-'));
}

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`The built CLI is missing at ${CLI}: run \`npx tsc -p tsconfig.json\` first`);
}

export interface McpCli {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `plaited-agent --adapter mcp` and connects the official MCP client to it over stdio. */
export async function startMcpCli(options: {
  cwd: string;
  args?: string[];
  capabilities?: ClientCapabilities;
  configure?: (client: Client) => void;
  /** The runtime that runs the CLI (default: this Node). */
  runtime?: RuntimeName;
}): Promise<McpCli> {
  requireBuiltCli();
  trustProjectConfig(options.cwd, options.args);
  let stderr = '';
  const transport = new StdioClientTransport({
    command: runtimeExecutable(options.runtime),
    args: [CLI, '--adapter', 'mcp', ...(options.args ?? [])],
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'plaited-mcp-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.configure?.(client);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
}

/** The text content of a tool result. */
export function resultText(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
