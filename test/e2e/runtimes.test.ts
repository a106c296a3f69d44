import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { connectAcpHttp, initializeHttp, textOf } from '../adapters/acp/acp-http-client.js';
import { startHttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { project as mcpProject, resultText, startMcpCli } from '../adapters/mcp-server/mcp-test-kit.js';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { agentText, initialize } from '../helpers/acp-cli.js';
import { RUNTIMES, runtimeExecutable } from '../helpers/runtimes.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = sharedAcpBed({ prefix: 'plaited-runtime-' });

// The same scenarios through the real binary under each runtime: Node runs better-sqlite3,
// Bun runs bun:sqlite, and everything above the storage driver is shared.
// The ACP stdio scenarios of a runtime share one CLI, each in a session and folder of its own; the
// restart runs after them and restarts that CLI. Other faces and flags keep CLIs of their own.
describe.each(RUNTIMES)('the CLI under %s', (runtime) => {
  const shared = bed.shared({ runtime });

  it('streams a plain answer over ACP', async () => {
    const cwd = bed.project();
    const cli = shared.cli;
    const sessionId = await shared.session(cwd);
    bed.server.push({ text: `Hello from ${runtime}.` });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe(`Hello from ${runtime}.`);
  });

  it('asks permission for a write tool and applies it when granted', async () => {
    const cwd = bed.project();
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = shared.cli;
    const sessionId = await shared.session(cwd, (request) => {
      asked.push(request);
      return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
    });
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: runtime } }] }, { text: 'Written.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe(runtime);
  });

  it('cancels a running bash call and leaves no child process', async () => {
    const cwd = bed.project();
    const marker = `plaited-${runtime}-cancel-${process.pid}-${Date.now()}`;
    const cli = shared.cli;
    const sessionId = await shared.session(cwd);
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: `sleep 30 && echo ${marker}` } }] });
    const prompt = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status === 0);
    await cli.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status !== 0);
  });

  it('restarts and continues a session with session/load', async () => {
    // The first run is the shared CLI, in the folder it started in; it serves no test after this one.
    const cwd = shared.cwd;
    writeFileSync(join(cwd, 'a.txt'), 'content of a');
    const first = shared.cli;
    const sessionId = await shared.session(cwd);
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says: content of a.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is in a.txt?' }] });
    await shared.close();

    const second = bed.start(cwd, { runtime });
    await initialize(second);
    expect((await second.agent.request('session/list', { cwd })).sessions.map((info) => info.sessionId)).toContain(sessionId);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(agentText(second, sessionId)).toBe('It says: content of a.');
    const before = bed.server.requests.length;
    bed.server.push({ text: 'Still here.' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(JSON.stringify(bed.server.requests[before]!.messages)).toContain('content of a');
  });

  it('runs the whole agent under bubblewrap with --adapter sandbox', async () => {
    const cwd = bed.project();
    const outside = `/etc/plaited-${runtime}-sandbox-probe-${process.pid}`;
    const cli = bed.start(cwd, { runtime, args: ['--adapter', 'sandbox', '--adapter', 'acp'] });
    await initialize(cli);
    const sessionId = (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: `echo inside > in.txt && echo escaped > ${outside}` } }] }, { text: 'Tried.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write both' }] });
    expect(response.stopReason).toBe('end_turn');
    // The project is writable inside the sandbox; /etc is not, even though the tests run as root.
    expect(readFileSync(join(cwd, 'in.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(outside)).toBe(false);
  });

  it('serves ACP over HTTP and WebSocket to a client with the bearer token, and refuses one without', async () => {
    const cwd = bed.project();
    const http = await startHttpCli({ cwd, runtime, args: ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url], urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/ });
    try {
      expect((await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
      for (const transport of ['http', 'websocket'] as const) {
        const client = connectAcpHttp(http.url, { transport });
        try {
          await initializeHttp(client);
          const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] });
          bed.server.push({ text: `${transport} under ${runtime}.` });
          const response = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
          expect(response.stopReason).toBe('end_turn');
          expect(textOf(client, sessionId)).toBe(`${transport} under ${runtime}.`);
          expect(client.validator.errors, client.validator.errors.join('\n')).toEqual([]);
        } finally {
          client.close();
        }
      }
    } finally {
      await http.close();
    }
  });

  it('a server started with a secret (a launcher and its agent) stops on one SIGTERM, and its agent dies with a SIGKILLed launcher', async () => {
    const cwd = bed.project();
    const start = () => startHttpCli({ cwd, runtime, args: ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url], urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/ });
    // The bearer token is a secret: the launcher re-runs the agent without it and passes signals on over the lifeline.
    const agentOf = (launcher: number) => Number(readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim());
    const gone = (pid: number) => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');

    const stopped = await start();
    const first = agentOf(stopped.child.pid!);
    const exited = new Promise<NodeJS.Signals | null>((done) => stopped.child.once('exit', (_code, signal) => done(signal)));
    stopped.child.kill('SIGTERM');
    // Before the fix, under Bun, neither heard it: the launcher waited on an agent that never got the signal.
    expect(await exited).toBeNull();
    await waitFor(() => gone(first), 10_000, 'the agent to stop with its launcher');

    const killed = await start();
    const second = agentOf(killed.child.pid!);
    killed.child.kill('SIGKILL');
    await waitFor(() => gone(second), 10_000, 'the agent to end when its launcher was killed');
  });

  it("runs a turn through the MCP face's prompt tool", async () => {
    const cli = await startMcpCli({
      cwd: mcpProject(),
      runtime,
      args: ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url],
    });
    try {
      bed.server.push({ text: `MCP answer from ${runtime}.` });
      const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'say hello' } });
      expect(result.isError).toBeFalsy();
      expect(resultText(result)).toBe(`MCP answer from ${runtime}.`);
    } finally {
      await cli.close();
    }
  });
});

describe('the hybrid index under Bun', () => {
  it('passes the hybrid-index test file with bun:sqlite (FTS5, WAL, vectors)', () => {
    // Bun's own test runner runs the vitest file as it is (it maps `vitest` to `bun:test`);
    // under Node, vitest runs the same file with better-sqlite3.
    // Bun's 5 s per test is vitest's 30 s here (vitest.config.ts): its first test builds the embedder, slow on a loaded machine.
    const run = spawnSync(runtimeExecutable('bun'), ['test', '--timeout', '30000', 'test/retrieval/hybrid-index.test.ts'], {
      cwd: join(import.meta.dirname, '../..'),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/\b0 fail\b/);
    expect(Number(/(\d+) pass\b/.exec(output)?.[1])).toBeGreaterThanOrEqual(18);
  });
});
