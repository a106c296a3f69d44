import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-operator-logs-' });
const KEY = 'sk-test-0123456789abcdefghijklmnop';

type Record = { time: string; level: string; msg: string; event?: string; [key: string]: unknown };
const records = (path: string): Record[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record);

describe('logs that help', () => {
  it('logs each model step, tool call and MCP call at debug as JSON lines in --log-file', async () => {
    const cwd = bed.project();
    const logFile = join(cwd, 'logs/agent.jsonl');
    const cli = bed.start(cwd, { args: ['--log-level', 'debug', '--log-file', logFile] });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', {
      cwd,
      mcpServers: [{ name: 'fixture', command: process.execPath, args: [fixtureServer, '--name', 'fixture'], env: [] }],
    });
    bed.server.push(
      { toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'through MCP' } }], usage: { prompt_tokens: 120, completion_tokens: 7 } },
      { text: 'Echoed.', usage: { prompt_tokens: 140, completion_tokens: 3 } },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo something' }] });
    expect(response.stopReason).toBe('end_turn');
    await waitFor(() => records(logFile).filter((r) => r.event === 'model-step').length === 2, 10_000, 'two model steps logged');

    const all = records(logFile);
    const steps = all.filter((r) => r.event === 'model-step');
    expect(steps[0]).toMatchObject({ level: 'debug', model: 'scripted', inputTokens: 120, outputTokens: 7, stopReason: 'tool-calls' });
    expect(steps[1]).toMatchObject({ inputTokens: 140, outputTokens: 3, stopReason: 'stop' });
    expect(String(steps[0]!.provider)).toMatch(/openai/);
    expect(typeof steps[0]!.latencyMs).toBe('number');
    const tool = all.find((r) => r.event === 'tool-call');
    expect(tool).toMatchObject({ level: 'debug', tool: 'mcp__fixture__echo', outcome: 'ok', sessionId });
    expect(typeof tool!.durationMs).toBe('number');
    const mcp = all.find((r) => r.event === 'mcp-call' && r.method === 'tools/call');
    expect(mcp).toMatchObject({ server: 'fixture', target: 'echo', outcome: 'ok' });
    // The same lines, for humans, on stderr.
    expect(cli.stderr()).toMatch(/debug: model step: \S+ scripted, 120 in \/ 7 out tokens, \d+ ms, stop: tool-calls/);
    expect(cli.stderr()).toMatch(/debug: tool call: mcp__fixture__echo \(mcp\) ok in \d+ ms/);
  });

  it('logs a failed model call at warn at the default level, with the key redacted', async () => {
    const cwd = bed.project();
    const logFile = join(cwd, 'agent.jsonl');
    const cli = bed.start(cwd, { args: ['--log-file', logFile], env: { PLAITED_API_KEY: KEY } });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    // A 400: not retried (a 5xx would be, within agent.retries), so the one scripted reply is the failure.
    bed.server.push({ status: 400, errorBody: { error: { message: `upstream refused the request made with key ${KEY}`, type: 'invalid_request_error' } } });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }).catch(() => undefined);
    await waitFor(() => records(logFile).some((r) => r.event === 'model-error'), 15_000, 'the failed call logged');
    const failed = records(logFile).find((r) => r.event === 'model-error')!;
    expect(failed).toMatchObject({ level: 'warn', model: 'scripted' });
    expect(failed.msg).toContain('model call to');
    expect(failed.msg).toContain('failed after');
    expect(readFileSync(logFile, 'utf8')).not.toContain(KEY);
    expect(cli.stderr()).toMatch(/warn: model call to \S+ scripted failed after \d+ ms/);
    expect(cli.stderr()).not.toContain(KEY);
    // Debug lines stay out at the default level.
    expect(records(logFile).some((r) => r.level === 'debug')).toBe(false);
  });

  it('rotates the log file past its size bound, every line whole JSON', async () => {
    const cwd = bed.project();
    const logFile = join(cwd, 'agent.jsonl');
    const cli = bed.start(cwd, { args: ['--log-level', 'debug', '--log-file', logFile], env: { PLAITED_LOG_FILE_MAX_BYTES: '1500' } });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    // Turns until the file has rotated twice (each turn logs a model step and more).
    for (let turn = 0; turn < 30 && !existsSync(`${logFile}.2`); turn += 1) {
      bed.server.push({ text: `answer ${turn}` });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `question ${turn}` }] });
    }
    expect(existsSync(`${logFile}.2`)).toBe(true);
    for (const path of [logFile, `${logFile}.1`, `${logFile}.2`]) {
      expect(readFileSync(path).length).toBeLessThanOrEqual(1500);
      expect(records(path).length).toBeGreaterThan(0);
    }
    expect(existsSync(`${logFile}.4`)).toBe(false);
  });

  it('a start that fails says why in the log file too, not only on stderr (a port another process holds)', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    const { port } = holder.address() as AddressInfo;
    try {
      const cwd = bed.project();
      const logFile = join(cwd, 'agent.log');
      const cli = bed.start(cwd, { args: ['--transport', 'http', '--port', String(port), '--log-file', logFile] });
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toContain(`plaited-agent: adapter acp: 127.0.0.1:${port} is already in use`);
      expect(records(logFile)).toContainEqual(expect.objectContaining({ level: 'error', event: 'fatal', msg: expect.stringContaining(`adapter acp: 127.0.0.1:${port} is already in use`) }));
    } finally {
      await new Promise((closed) => holder.close(closed));
    }
  });

  it('refuses a log file it cannot write, naming it', async () => {
    const cwd = bed.project();
    const cli = bed.start(cwd, { args: ['--log-file', cwd] });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`cannot write the log file ${cwd}`);
  });

  it('refuses a log file under /proc, naming it (Node\'s own recursive mkdir spins there for ever)', async () => {
    const cli = bed.start(bed.project(), { args: ['--log-file', '/proc/plaited-agent/agent.log'] });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('cannot write the log file /proc/plaited-agent/agent.log: ENOENT');
  });
});
