import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  a2aAdapter,
  acpAdapter,
  mcpAdapter,
  parseConfig,
  sandboxAdapter,
  type A2aAdapterOptions,
  type A2aServer,
  type AcpAdapterOptions,
  type AcpStdioServer,
  type Agent,
  type AgentAdapter,
  type McpServerAdapterOptions,
  type McpServerHandle,
  type SandboxAdapterOptions,
} from '../../src/index.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { makeAgent } from '../agent/agent-test-kit.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = join(root, 'dist/src/index.js');
const REGISTER = join(root, 'test/fixtures/adapters/import-log/register.mjs');

describe('the public entry (src/index.ts)', () => {
  it('exports the API adapters and configs are written against, and loads no protocol SDK or native module', () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npx tsc -p tsconfig.json\` first`);
    const log = join(mkdtempSync(join(tmpdir(), 'plaited-imports-')), 'imports.log');
    const script = [
      `const api = await import(${JSON.stringify(ENTRY)});`,
      `const adapters = ['acpAdapter', 'mcpAdapter', 'a2aAdapter', 'sandboxAdapter'].map((key) => [key, api[key]?.name, typeof api[key]?.wrap]);`,
      `console.log(JSON.stringify({ keys: Object.keys(api).sort(), adapters }));`,
    ].join(' ');
    const run = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, PLAITED_IMPORT_LOG: log },
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const { keys: exported, adapters } = JSON.parse(run.stdout.trim()) as { keys: string[]; adapters: string[][] };
    expect(exported).toEqual(expect.arrayContaining(['createAgent', 'createDefaultAgent', 'defineConfig', 'defineTool', 'textResult', 'AdapterLoadError']));
    // The built-in adapters are values a program imports, the same names `--adapter` takes.
    expect(adapters).toEqual([
      ['acpAdapter', 'acp', 'function'],
      ['mcpAdapter', 'mcp', 'function'],
      ['a2aAdapter', 'a2a', 'function'],
      ['sandboxAdapter', 'sandbox', 'function'],
    ]);
    const loaded = readFileSync(log, 'utf8').split('\n');
    expect(loaded, 'the import log recorded nothing: the resolve hook did not run').toContain('./agent/create-agent.js');
    // Node-only transports and heavy modules load lazily, behind the adapters that need them.
    for (const heavy of ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@agentclientprotocol/sdk', 'ws', 'node-llama-cpp', 'better-sqlite3', 'jiti', '@a2a-js/sdk', '@anthropic-ai/sandbox-runtime']) {
      expect(loaded, `${heavy} was loaded by the public entry`).not.toContain(heavy);
    }
  });

  it("the bundled CLI's library entry (what an adapter's 'plaited-agent' resolves to) exports what the package entry does", () => {
    const script = `const [a, b] = await Promise.all([import(${JSON.stringify(ENTRY)}), import(${JSON.stringify(join(root, 'dist/bin/library.js'))})]); console.log(JSON.stringify([Object.keys(a).sort(), Object.keys(b).sort()]));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    const [entry, library] = JSON.parse(run.stdout.trim()) as [string[], string[]];
    expect(entry.length).toBeGreaterThan(20);
    expect(library).toEqual(entry);
  });

  it('exports the built-in adapters as typed values; acpAdapter serves ACP over any stream pair without the CLI', async () => {
    // Typed options and results: these assignments are what tsconfig.test.json checks.
    const adapters: [AgentAdapter<AcpAdapterOptions, AcpStdioServer>, AgentAdapter<McpServerAdapterOptions, McpServerHandle>, AgentAdapter<A2aAdapterOptions, A2aServer>, AgentAdapter<SandboxAdapterOptions, Agent>] = [
      acpAdapter,
      mcpAdapter,
      a2aAdapter,
      sandboxAdapter,
    ];
    expect(adapters.map((adapter) => [adapter.name, typeof adapter.wrap])).toEqual([
      ['acp', 'function'],
      ['mcp', 'function'],
      ['a2a', 'function'],
      ['sandbox', 'function'],
    ]);
    const agent = makeAgent(scriptedModel([{ text: 'hello' }]));
    const input = new PassThrough();
    const output = new PassThrough();
    const server = await acpAdapter.wrap(agent, { input, output });
    const lines = createInterface({ input: output })[Symbol.asyncIterator]();
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    const reply = JSON.parse(String((await lines.next()).value)) as { id: number; result?: { protocolVersion: number; agentInfo?: { version: string } } };
    expect(reply.id).toBe(1);
    expect(reply.result?.protocolVersion).toBe(1);
    // Served from a program (no version option): the package's own version, not 0.0.0.
    expect(reply.result?.agentInfo?.version).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
    input.end();
    await server.closed;
  });

  it("acpAdapter's closed resolves when the client's input ends before any message, though no one reads the output", async () => {
    const agent = makeAgent(scriptedModel([]));
    const input = new PassThrough();
    const output = new PassThrough();
    const server = await acpAdapter.wrap(agent, { input, output });
    input.end();
    await server.closed;
    expect(output.writableEnded).toBe(true);
    // The same after a message whose reply no one read.
    const secondInput = new PassThrough();
    const second = await acpAdapter.wrap(agent, { input: secondInput, output: new PassThrough() });
    secondInput.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    await second.closed;
  });

  it("mcpAdapter over HTTP from a program: its config's server.auth.token opens it; given none, the token it generates is announced on stderr", async () => {
    const agent = makeAgent(scriptedModel([]));
    const initialize = (url: string, token: string | undefined) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
    const token = 'library-config-token-0123456789';
    const configured = await mcpAdapter.wrap(agent, { transport: 'http', port: 0, config: { server: { auth: { token } } } });
    try {
      expect((await initialize(String(configured.url), token)).status).toBe(200);
    } finally {
      await configured.close?.();
    }
    // ACP over HTTP takes it from its config the same way.
    const acp = await acpAdapter.wrap(agent, { transport: 'http', port: 0, config: parseConfig({ server: { auth: { token } } }) });
    try {
      const reply = await fetch(String(acp.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }),
      });
      expect(reply.status).toBe(200);
    } finally {
      acp.close?.();
    }
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    let bare: Awaited<ReturnType<typeof mcpAdapter.wrap>>;
    try {
      bare = await mcpAdapter.wrap(agent, { transport: 'http', port: 0 });
    } finally {
      process.stderr.write = write;
    }
    try {
      const announced = /network auth token \(generated\): (\S+)/.exec(written.join(''))?.[1];
      expect(announced).toBeDefined();
      expect((await initialize(String(bare.url), announced)).status).toBe(200);
    } finally {
      await bare.close?.();
      await agent.stop();
    }
  });
});
