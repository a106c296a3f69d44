/**
 * Adapter overhead, with an instant model so only the adapters are measured:
 * - MCP `prompt`: one turn straight through `agent.process` versus the same turn as an MCP
 *   `tools/call` (in-process linked transports), and over the built CLI's stdio.
 * - ACP: a `session/prompt` round trip over the built CLI's stdio versus its HTTP transport.
 * - A2A: a blocking `SendMessage` round trip over the built CLI (`--adapter a2a`), beside ACP over HTTP.
 * Returns numbers (median/p95 milliseconds); prints JSON when run directly
 * (`node dist/bench/adapters.js`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { instantOpenAIServer } from './instant-openai-server.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from '../src/agent/create-agent.js';
import { configSchema } from '../src/config/schema.js';
import { createAgentMcpServer } from '../src/adapters/mcp-server/create-agent-mcp-server.js';
import { median, percentile, round } from './stats.js';
import { instantTextStream } from '../src/model/instant-stream.js';
import { a2aOverCli } from './a2a-round-trip.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../bin/plaited-agent.js');

export async function benchAdapters(rounds = 30): Promise<Record<string, number>> {
  const model = await instantOpenAIServer();
  try {
    const inProcess = await mcpInProcess(rounds);
    const mcpStdio = await mcpOverCli(model.url, rounds);
    const acpStdio = await acpOverCli(model.url, rounds, 'stdio');
    const acpHttp = await acpOverCli(model.url, rounds, 'http');
    const a2a = await a2aOverCli(CLI, project(), model.url, (run) => timed(rounds, run));
    return {
      rounds,
      agent_turn_direct_median_ms: median(inProcess.direct),
      mcp_prompt_in_process_median_ms: median(inProcess.mcp),
      mcp_prompt_overhead_median_ms: round(median(inProcess.mcp) - median(inProcess.direct)),
      mcp_prompt_stdio_cli_median_ms: median(mcpStdio),
      mcp_prompt_stdio_cli_p95_ms: percentile(mcpStdio, 95),
      acp_prompt_stdio_median_ms: median(acpStdio),
      acp_prompt_stdio_p95_ms: percentile(acpStdio, 95),
      acp_prompt_http_median_ms: median(acpHttp),
      acp_prompt_http_p95_ms: percentile(acpHttp, 95),
      acp_http_over_stdio_median_ms: round(median(acpHttp) - median(acpStdio)),
      acp_prompt_http_p99_ms: percentile(acpHttp, 99),
      a2a_send_median_ms: median(a2a),
      a2a_send_p99_ms: percentile(a2a, 99),
      a2a_over_acp_http_median_ms: round(median(a2a) - median(acpHttp)),
    };
  } finally {
    await model.close();
    for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** The throwaway project folders (each with its session store), removed when the bench ends. */
const projects: string[] = [];

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-adapters-'));
  mkdirSync(join(cwd, '.plaited'));
  projects.push(cwd);
  return cwd;
}

async function timed(rounds: number, run: (round: number) => Promise<unknown>): Promise<number[]> {
  await run(-1); // warm-up: lazy imports, SQLite, the first session
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await run(round);
    times.push(performance.now() - start);
  }
  return times;
}

/** The same agent and instant model, turn by turn directly and through an MCP `prompt` call. */
async function mcpInProcess(rounds: number): Promise<{ direct: number[]; mcp: number[] }> {
  const cwd = project();
  const model = new MockLanguageModelV3({ doStream: async () => ({ stream: instantTextStream('ok', { tokens: 1 }) }) });
  const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model, tools: [] });
  try {
    const session = await agent.sessions.create({ cwd });
    const direct = await timed(rounds, async () => {
      for await (const _event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'hi' }] })) void _event;
    });
    const server = createAgentMcpServer(agent, { cwd, skills: [] });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    const mcp = await timed(rounds, () => client.callTool({ name: 'prompt', arguments: { prompt: 'hi', sessionId: session.sessionId } }));
    await client.close();
    return { direct, mcp };
  } finally {
    await agent.stop();
  }
}

async function mcpOverCli(modelUrl: string, rounds: number): Promise<number[]> {
  const cwd = project();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--adapter', 'mcp', '--model', 'openai-compatible:instant', '--base-url', modelUrl],
    cwd,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    const opened = await client.callTool({ name: 'new_session', arguments: {} });
    const sessionId = (opened.structuredContent as { sessionId: string }).sessionId;
    return await timed(rounds, () => client.callTool({ name: 'prompt', arguments: { prompt: 'hi', sessionId } }));
  } finally {
    await client.close();
  }
}

async function acpOverCli(modelUrl: string, rounds: number, transport: 'stdio' | 'http'): Promise<number[]> {
  const cwd = project();
  const args = [CLI, '--model', 'openai-compatible:instant', '--base-url', modelUrl, ...(transport === 'http' ? ['--transport', 'http', '--port', '0'] : [])];
  const token = 'plaited-bench-token-0123456789abcdef';
  const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PLAITED_AUTH_TOKEN: token } });
  try {
    const stream =
      transport === 'http'
        ? createHttpStream(await listeningUrl(child), { headers: { authorization: `Bearer ${token}` } })
        : acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
    const connection = acp.client({ name: 'bench' }).connect(stream);
    await connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request('session/new', { cwd, mcpServers: [] });
    const times = await timed(rounds, () => connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }));
    connection.close();
    return times;
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((found, fail) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`no ACP HTTP URL within 15 s: ${stderr}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /ACP over HTTP at (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        found(match[1]!);
      }
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchAdapters().then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
