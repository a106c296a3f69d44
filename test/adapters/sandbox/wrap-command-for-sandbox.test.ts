import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { explainSandboxFailure } from '../../../src/adapters/sandbox/explain-sandbox-failure.js';
import { createSandboxPolicy, type SandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { wrapCommandForSandbox } from '../../../src/adapters/sandbox/wrap-command-for-sandbox.js';
import { FIXTURE_KEY, createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

const SERVER = fileURLToPath(new URL('../../fixtures/sandbox/file-reader-mcp-server.mjs', import.meta.url));

let world: SandboxWorld;
let policy: SandboxPolicy;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  world = await createSandboxWorld();
  policy = createSandboxPolicy({ config: sandboxSchema.parse({ commands: true }), cwd: world.project, home: world.home });
});

afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

async function connect(command: string, args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, cwd: world.project, env: { ...getDefaultEnvironment(), HOME: world.home }, stderr: 'pipe' });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((part) => part.text ?? '').join('\n');
}

describe('wrapCommandForSandbox: a stdio MCP server under the policy', () => {
  it('wraps the command so MCP still speaks over stdio, and a denied read fails with the reason', async () => {
    const wrapped = await wrapCommandForSandbox(process.execPath, [SERVER], policy);
    expect(wrapped.command).toBe('/bin/sh');
    expect(wrapped.args.join(' ')).toContain('bwrap');

    const client = await connect(wrapped.command, wrapped.args);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toEqual(['read_text']);

      const allowed = await client.callTool({ name: 'read_text', arguments: { path: `${world.project}/output/../outside-ok.txt` } });
      expect(allowed.isError).toBe(true); // does not exist: an ordinary error, not a sandbox one
      expect(explainSandboxFailure({ output: text(allowed), exitCode: 1, signal: null, timedOut: false, cwd: world.project, policy, networkDenials: [] })).toEqual([]);

      const secret = await client.callTool({ name: 'read_text', arguments: { path: world.sshKeyPath } });
      expect(secret.isError).toBe(true);
      expect(text(secret)).not.toContain(FIXTURE_KEY.trim());
      const findings = explainSandboxFailure({ output: text(secret), exitCode: 1, signal: null, timedOut: false, cwd: world.project, policy, networkDenials: [] });
      expect(findings.map((finding) => finding.message)).toEqual([`blocked by sandbox: read of ${world.sshKeyPath} (a protected path)`]);
    } finally {
      await client.close();
      await wrapped.release();
    }
  });

  it('with the project writable, placeholders hold the missing protected names while the server runs, and go with its release', async () => {
    const before = readdirSync(world.project).sort();
    const writable = createSandboxPolicy({ config: sandboxSchema.parse({ commands: true }), cwd: world.project, home: world.home, allowEdits: true });
    const placeholders = writable.placeholders.map((spec) => spec.path).filter((path) => dirname(path) === world.project);
    expect(placeholders.length).toBeGreaterThan(0);
    const wrapped = await wrapCommandForSandbox(process.execPath, [SERVER], writable);
    const client = await connect(wrapped.command, wrapped.args);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['read_text']);
      for (const path of placeholders) expect(existsSync(path), path).toBe(true);
    } finally {
      await client.close();
      await wrapped.release();
    }
    expect(readdirSync(world.project).sort()).toEqual(before);
  });

  it('the same server unwrapped reads the key (the test would notice a sandbox that does nothing)', async () => {
    const client = await connect(process.execPath, [SERVER]);
    try {
      const secret = await client.callTool({ name: 'read_text', arguments: { path: world.sshKeyPath } });
      expect(text(secret)).toContain('plaited-fixture-key');
    } finally {
      await client.close();
    }
  });
});
