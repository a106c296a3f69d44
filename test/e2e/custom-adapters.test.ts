import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { requireBuiltCli } from '../adapters/mcp-server/mcp-test-kit.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HTTP_EXAMPLE = join(root, 'examples/http-sse-adapter.ts');
const REPL_EXAMPLE = join(root, 'examples/repl-adapter.ts');
const BROKEN = join(root, 'test/fixtures/adapters/broken');
const PLAIN = join(root, 'test/fixtures/adapters/plain-adapter.mjs');

/** One model server for the file; after each test no scripted step may be left over. */
let model: ScriptedOpenAIServer;
let from = 0;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
});
afterAll(async () => {
  await model?.close();
});
beforeEach(() => {
  from = model.requests.length;
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  expect(model.pending(), 'scripted steps the test left unused').toBe(0);
});

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-custom-'));
  mkdirSync(join(cwd, '.plaited'));
  return cwd;
}

const modelArgs = () => ['--model', 'openai-compatible:scripted', '--base-url', model.url];

/** Parses a server-sent events body into `{ event, data }` pairs. */
function parseSse(body: string): Array<{ event: string; data: Record<string, unknown> }> {
  return body
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

async function startHttpExample(cwd: string, extra: string[] = [], stopAfter = stops): Promise<HttpCli> {
  // No --transport flag: with --adapter mcp in `extra`, MCP keeps its default, stdio.
  const cli = await startHttpCli({
    cwd,
    args: ['--adapter', HTTP_EXAMPLE, ...extra, ...modelArgs()],
    urlPattern: /http-sse adapter listening on (http:\/\/\S+)/,
    transportFlag: false,
  });
  stopAfter.push(() => cli.close());
  return cli;
}

describe('custom adapters: the examples, loaded by the CLI with jiti', () => {
  // The two http-sse tests on the same flags share one CLI (a start is ~1 s of CPU); their sessions work in its folder.
  let sse: { cli: HttpCli; cwd: string };
  const sseStops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    const cwd = project();
    sse = { cli: await startHttpExample(cwd, [], sseStops), cwd };
  });
  afterAll(async () => {
    for (const stop of sseStops.splice(0)) await stop();
  });

  it('http-sse: POST /prompt streams the agent events as server-sent events, and a session continues', async () => {
    const { cli } = sse;
    model.push({ text: 'Hello from SSE.' });
    const response = await fetch(`${cli.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'hi' }) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await response.text());
    expect(events[0]!.event).toBe('session');
    const sessionId = events[0]!.data.sessionId as string;
    expect(events.map((e) => e.event)).toContain('user-message');
    expect(events.filter((e) => e.event === 'text-delta').map((e) => e.data.text).join('')).toBe('Hello from SSE.');
    expect(events[events.length - 1]).toMatchObject({ event: 'turn-end', data: { stopReason: 'end_turn', sessionId } });

    model.push({ text: 'Still here.' });
    const again = parseSse(await (await fetch(`${cli.url}/prompt`, { method: 'POST', body: JSON.stringify({ prompt: 'again', sessionId }) })).text());
    expect(again[0]!.data.sessionId).toBe(sessionId);
    expect(JSON.stringify(model.requests[from + 1]!.messages)).toContain('Hello from SSE.');
  });

  it('http-sse: write tools are rejected (nobody to ask) and bad requests get JSON errors', async () => {
    const { cli, cwd } = sse;
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'Not written.' });
    const events = parseSse(await (await fetch(`${cli.url}/prompt`, { method: 'POST', body: JSON.stringify({ prompt: 'write' }) })).text());
    const permission = events.find((e) => e.event === 'permission-request');
    expect(permission?.data.decision).toMatch(/^rejected/);
    expect(existsSync(join(cwd, 'x.txt'))).toBe(false);
    const bad = await fetch(`${cli.url}/prompt`, { method: 'POST', body: 'not json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('JSON');
    expect((await fetch(`${cli.url}/other`)).status).toBe(404);
  });

  it('repl: a line is a prompt, permission is asked inline, end of input exits cleanly', async () => {
    requireBuiltCli();
    const cwd = project();
    const child = spawn(process.execPath, [CLI, '--adapter', REPL_EXAMPLE, ...modelArgs()], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    stops.push(async () => void child.kill('SIGKILL'));
    const out = collect(child);
    await out.waitFor(/session \S+/);
    model.push({ text: 'Hi from the REPL.' });
    child.stdin.write('hello\n');
    await out.waitFor(/\[done: end_turn\]/);
    expect(out.text()).toContain('Hi from the REPL.');

    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'repl.txt', content: 'from repl' } }] }, { text: 'Wrote it.' });
    child.stdin.write('write repl.txt\n');
    await out.waitFor(/Allow .*\? \[y\/N\]/);
    child.stdin.write('y\n');
    await out.waitFor(/Wrote it\.\s*\n\[done: end_turn\]/);
    expect(readFileSync(join(cwd, 'repl.txt'), 'utf8')).toBe('from repl');

    child.stdin.end();
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(0);
  });

  it('adapters compose: --adapter mcp (stdio) and the http-sse example serve one agent', async () => {
    const cwd = project();
    const cli = await startHttpExample(cwd, ['--adapter', 'mcp']);
    model.push({ text: 'via http' });
    const events = parseSse(await (await fetch(`${cli.url}/prompt`, { method: 'POST', body: JSON.stringify({ prompt: 'one agent' }) })).text());
    const sessionId = events[0]!.data.sessionId as string;
    // The same agent answers MCP on stdio: its list_sessions sees the HTTP session.
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } },
    ];
    const out = collect(cli.child as ChildProcessWithoutNullStreams);
    for (const line of lines) cli.child.stdin!.write(`${JSON.stringify(line)}\n`);
    await out.waitFor(/"id":2/);
    expect(out.text()).toContain(sessionId);
  });
});

describe('custom adapters: broken modules exit with a message naming the file and the fault', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['no default export', join(BROKEN, 'no-default.ts'), /has no default export/],
    ['wrong shape', join(BROKEN, 'wrong-shape.ts'), /needs a "wrap\(agent, config\)" function/],
    ['not an object', join(BROKEN, 'not-object.ts'), /default export is not an object/],
    ['throws while loading', join(BROKEN, 'throws.ts'), /threw while loading: adapter fixture exploded on purpose/],
    ['missing file', join(BROKEN, 'does-not-exist.ts'), /file not found/],
    ['throws in wrap', join(BROKEN, 'throws-in-wrap.ts'), /did not start: wrap fixture exploded on purpose/],
    ['wrap resolves to nothing', join(BROKEN, 'returns-nothing.ts'), /did not start: wrap resolved to undefined; resolve to \{ closed: Promise \}/],
  ];
  for (const [name, file, message] of cases) {
    it(name, () => {
      requireBuiltCli();
      const run = spawnSync(process.execPath, [CLI, '--adapter', file], { cwd: project(), encoding: 'utf8', timeout: 30_000, input: '' });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(`adapter ${file}:`);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    });
  }

  it('a served face whose closed rejects: exit 1 naming the file and the cause, no stack', () => {
    requireBuiltCli();
    const file = join(BROKEN, 'closed-rejects.ts');
    const run = spawnSync(process.execPath, [CLI, '--adapter', file], { cwd: project(), encoding: 'utf8', timeout: 30_000, input: '' });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`plaited-agent: adapter ${file} stopped: closed fixture lost its socket on purpose`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a syntax error', () => {
    requireBuiltCli();
    const cwd = project();
    const file = join(cwd, 'syntax-error.ts');
    writeFileSync(file, 'export default { name: "broken", wrap(agent) { return agent\n');
    const run = spawnSync(process.execPath, [CLI, '--adapter', './syntax-error.ts'], { cwd, encoding: 'utf8', timeout: 30_000, input: '' });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`adapter ${file}: threw while loading`);
  });

  it('an unknown adapter name lists the built-ins', () => {
    requireBuiltCli();
    const run = spawnSync(process.execPath, [CLI, '--adapter', 'telnet'], { cwd: project(), encoding: 'utf8', timeout: 30_000, input: '' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/adapter telnet: unknown adapter name; built-ins are acp, mcp and sandbox/);
  });
});

describe('custom adapters: a section under adapters that no adapter reads', () => {
  /** Runs the built CLI in a project whose config has these `adapters` sections; it exits at once (stdin closed, or the plain adapter's `closed`). */
  function runWith(adapters: Record<string, object>, args: string[]) {
    requireBuiltCli();
    const cwd = project();
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ adapters }));
    trustProjectConfig(cwd, args);
    return { cwd, run: spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 30_000, input: '' }) };
  }

  it('a misspelled built-in section is refused naming the closest built-in, the file and the section', () => {
    const { cwd, run } = runWith({ acpp: { transport: 'http' } }, []);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`Invalid config in ${join(cwd, '.plaited/config.json')}`);
    expect(run.stderr).toContain('adapters.acpp: no adapter is named "acpp": did you mean adapters.acp?');
    expect(run.stdout).toBe('');
  });

  it("a loaded custom adapter's section is accepted; a near miss of its name is refused; another section is ignored with a warning", () => {
    const accepted = runWith({ plain: { greeting: 'hi' }, reporting: { to: 'x' } }, ['--adapter', PLAIN]);
    expect(accepted.run.status, accepted.run.stderr).toBe(0);
    expect(accepted.run.stderr).not.toContain('adapters.plain');
    expect(accepted.run.stderr).toMatch(/config adapters\.reporting: no adapter named "reporting" is loaded, so this section is ignored/);

    const misspelled = runWith({ plian: { greeting: 'hi' } }, ['--adapter', PLAIN]);
    expect(misspelled.run.status, misspelled.run.stderr).toBe(2);
    expect(misspelled.run.stderr).toContain('adapters.plian: no adapter is named "plian": did you mean adapters.plain?');
  });
});

function collect(child: ChildProcessWithoutNullStreams) {
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    text: () => text,
    async waitFor(pattern: RegExp, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(text)) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`stdout never matched ${pattern}; stdout:\n${text}\nstderr:\n${stderr}`);
        }
        await new Promise((tick) => setTimeout(tick, 20));
      }
    },
  };
}
