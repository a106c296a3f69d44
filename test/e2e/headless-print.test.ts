import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { finishedRun, runCliOnce, type CliRun } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

// `plaited-agent -p`: one headless turn through the built CLI, on the scripted model (issue 25, item 1).
let server: ScriptedOpenAIServer;
beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const project = () => mkdtempSync(join(tmpdir(), 'plaited-print-'));
const print = (cwd: string, args: string[], input?: string) =>
  runCliOnce([...args, '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd, ...(input !== undefined ? { input } : {}) });
const sent = (index: number) => JSON.stringify(server.requests[index]!.messages);

/**
 * `-p` with the stdin a caller gives it: `shell`, a line of shell syntax around `"$@"` (the CLI and
 * `args`) making it a real pipe (`… | "$@"`) or file (`"$@" < …`), with `env` carrying the text;
 * `fd`, an open file of this process; `socket`, the socket Node's `stdio: 'pipe'` makes, held
 * open and never written to.
 */
const runPiped = (cwd: string, stdin: { shell: string; env?: Record<string, string> } | { fd: number } | 'socket', args: string[]): Promise<CliRun> => {
  const cli = [process.execPath, CLI, ...args, '--model', 'openai-compatible:scripted', '--base-url', server.url];
  const env = { ...process.env, ...(typeof stdin === 'object' && 'shell' in stdin ? stdin.env : {}) };
  return finishedRun(
    typeof stdin === 'object' && 'shell' in stdin
      ? spawn('sh', ['-c', stdin.shell, 'sh', ...cli], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(cli[0]!, cli.slice(1), { cwd, env, stdio: [stdin === 'socket' ? 'pipe' : stdin.fd, 'pipe', 'pipe'] }),
  );
};
/** `text` as it reads inside the JSON of {@link sent}. */
const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

interface Result {
  type: 'result';
  sessionId: string;
  result: string;
  stopReason: string;
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
  toolCalls: Array<{ name: string; status: string; input: unknown }>;
  refusedPermissions: Array<{ title: string; reason: string }>;
}

describe('plaited-agent -p (headless one-shot)', () => {
  it('--help lists the terminal commands and the -p flags', async () => {
    const run = await runCliOnce(['--help'], { cwd: project() });
    expect(run.status).toBe(0);
    for (const text of ['-p, --print', '--output-format', '--mode', '--allow RULE', '--deny RULE', '--resume ID', '--continue', 'sessions list', 'init', 'doctor', 'mcp list', '2 for a usage mistake']) {
      expect(run.stdout).toContain(text);
    }
  });

  it('prints the answer on stdout and exits 0', async () => {
    server.push({ text: 'Hello from the model.' });
    const run = await print(project(), ['-p', 'say hello']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello from the model.\n');
    expect(sent(0)).toContain('say hello');
  });

  it('to a pipe the answer is the bytes the model wrote; the lines for a person on stderr show control characters escaped', async () => {
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'echo hidden\r\u001b[2K echo shown' } }] }, { text: 'Bold \u001b[1manswer\u001b[0m.' });
    const run = await print(project(), ['-p', 'try it']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('Bold \u001b[1manswer\u001b[0m.\n');
    expect(run.stderr).toContain('refused Run: echo hidden\\u000d\\u001b[2K echo shown:');
    expect(run.stderr).not.toContain('\u001b');
  });

  it('--output-format json prints one object: result, session id, stop reason, usage and tool calls', async () => {
    server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Read it.', usage: { prompt_tokens: 40, completion_tokens: 3 } });
    const cwd = project();
    const run = await print(cwd, ['--print', 'read notes', '--output-format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Result;
    expect(result).toMatchObject({ type: 'result', result: 'Read it.', stopReason: 'end_turn', refusedPermissions: [] });
    expect(result.sessionId).toMatch(/\S/);
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: 'read_file', input: { path: 'notes.txt' } })]);
  });

  it("a step's text after an earlier step's begins a paragraph of its own, in the answer and the result, not glued to it", async () => {
    server.push({ text: 'Let me read the notes.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'They say hello.' });
    const text = await print(project(), ['-p', 'read notes']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toBe('Let me read the notes.\n\nThey say hello.\n');
    server.push({ text: 'Let me read the notes.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'They say hello.' });
    const json = await print(project(), ['-p', 'read notes', '--output-format', 'json']);
    expect((JSON.parse(json.stdout) as Result).result).toBe('Let me read the notes.\n\nThey say hello.');
    // What the model reads back is each step's own text.
    expect(JSON.stringify(server.requests.at(-1)!.messages)).toContain('"content":"Let me read the notes."');
  });

  it('--output-format stream-json prints one JSON event per line, then the result', async () => {
    server.push({ text: 'Streamed answer.' });
    const run = await print(project(), ['-p', 'stream it', '--output-format', 'stream-json']);
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; text?: string });
    expect(lines.filter((line) => line.type === 'text-delta').map((line) => line.text).join('')).toBe('Streamed answer.');
    expect(lines.some((line) => line.type === 'turn-end')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'Streamed answer.', stopReason: 'end_turn' });
  });

  it('a call that would ask is refused and reported, never waited on; --allow lets it run', async () => {
    const cwd = project();
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'written\n' } }] }, { text: 'Tried.' });
    const refused = await print(cwd, ['-p', 'write out.txt', '--output-format', 'json']);
    expect(refused.status, refused.stderr).toBe(0);
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false);
    expect(refused.stderr).toContain('refused Write out.txt');
    expect(refused.stderr).toContain('--allow');
    const result = JSON.parse(refused.stdout) as Result;
    expect(result.refusedPermissions).toEqual([expect.objectContaining({ title: 'Write out.txt' })]);
    // The model is told that nobody could be asked, not that the user said no (it would try variants).
    const told = server.requests.at(-1)!.messages.find((message) => message.role === 'tool')?.content;
    expect(told).toContain('Not run: it would ask for permission, and a headless run (-p) has no one to ask');
    expect(told).toContain('Do not retry it or a variant of it');

    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'written\n' } }] }, { text: 'Tried again.' });
    const streamed = await print(cwd, ['-p', 'write out.txt', '--output-format', 'stream-json']);
    expect(streamed.status, streamed.stderr).toBe(0);
    const events = streamed.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; title?: string });
    expect(events.filter((event) => event.type === 'permission-refused').map((event) => event.title)).toEqual(['Write out.txt']);
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false);

    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'written\n' } }] }, { text: 'Wrote it.' });
    const allowed = await print(cwd, ['-p', 'write out.txt', '--allow', 'write_file']);
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written\n');
    expect(allowed.stderr).not.toContain('refused');
    expect(allowed.stdout).toBe('Wrote it.\n');
  });

  it('--deny refuses a tool even in accept-edits mode; a config rule naming no tool is warned of', async () => {
    const cwd = project();
    // The config is also read by library users with tools of their own: a warning, not a refusal.
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited', 'config.json'), JSON.stringify({ tools: { allow: ['mcp__fs__*', 'read_file'], deny: ['bash_kil'] } }));
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }] }, { text: 'Done.' });
    const run = await print(cwd, ['-p', 'write', '--mode', 'accept-edits', '--deny', 'write_file']);
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false);
    expect(run.stderr).toContain(`config tools.deny "bash_kil": no tool is named 'bash_kil': did you mean bash_kill?`);
    expect(run.stderr).not.toContain('mcp__fs__*');
  });

  it('--continue and --resume add a turn to an earlier session, which the model sees', async () => {
    const cwd = project();
    server.push({ text: 'Noted.' });
    const first = JSON.parse((await print(cwd, ['-p', 'the secret word is banana', '--output-format', 'json'])).stdout) as Result;
    server.push({ text: 'It was banana.' });
    const second = await print(cwd, ['-p', 'which word?', '--continue', '--output-format', 'json']);
    expect(second.status, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as Result).sessionId).toBe(first.sessionId);
    expect(sent(1)).toContain('the secret word is banana');
    expect(sent(1)).toContain('Noted.');

    server.push({ text: 'Still banana.' });
    const third = await print(cwd, ['-p', 'again?', '--resume', first.sessionId]);
    expect(third.status, third.stderr).toBe(0);
    expect(sent(2)).toContain('which word?');

    // Like `sessions show`, a unique beginning of the id names the session.
    server.push({ text: 'Banana, again.' });
    const short = await print(cwd, ['-p', 'once more?', '--resume', first.sessionId.slice(0, 8), '--output-format', 'json']);
    expect(short.status, short.stderr).toBe(0);
    expect((JSON.parse(short.stdout) as Result).sessionId).toBe(first.sessionId);
    expect(sent(3)).toContain('again?');

    const missing = await print(cwd, ['-p', 'x', '--resume', 'no-such-session']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no session no-such-session');
  });

  it("-p \"/fx:greet Ann\" runs an MCP server's prompt: the model gets its messages; a missing argument fails before any model call, naming it", async () => {
    const cwd = project();
    mkdirSync(join(cwd, '.plaited'));
    const fixtureServer = join(import.meta.dirname, '../fixtures/mcp/fixture-server.mjs');
    const fx = { id: 'fx', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'fx'] };
    writeFileSync(join(cwd, '.plaited', 'config.json'), JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, mcp: { servers: [fx] } }));
    server.push({ text: 'Greeted.' });
    const run = await print(cwd, ['-p', '/fx:greet Ann style=formal']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('Greeted.\n');
    expect(sent(0)).toContain('Good day, Ann.');

    const missing = await print(cwd, ['-p', '/fx:review']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('the turn failed (invalid_input): /fx:review needs the argument "diff". Usage: /fx:review <diff>');
    expect(server.requests).toHaveLength(1);
  });

  it('reads the task from stdin when piped and no task is given', async () => {
    server.push({ text: 'From the pipe.' });
    const run = await print(project(), ['-p'], 'summarise the piped task\n');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('From the pipe.\n');
    expect(sent(0)).toContain('summarise the piped task');

    // A lone `-` names stdin, as for most Unix tools: it is no task of its own.
    server.push({ text: 'From the dash.' });
    const dash = await print(project(), ['-p', '-'], 'summarise the dashed task\n');
    expect(dash.status, dash.stderr).toBe(0);
    expect(server.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^summarise the dashed task\n?$/) });
  });

  it('a task and text a shell pipes or redirects in: the text follows the task; a socket held open is not waited for', async () => {
    const cwd = project();
    server.push({ text: 'A missing semicolon.' }, { text: 'Line 3.' }, { text: 'Hello.' });
    const piped = await runPiped(cwd, { shell: 'printf "%s\\n" "$LOG" | "$@"', env: { LOG: 'Error: boom\n  at main (app.js:3)' } }, ['-p', 'why does this fail?']);
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toBe('A missing semicolon.\n');
    expect(sent(0)).toContain(escaped('why does this fail?\n\n<stdin>\nError: boom\n  at main (app.js:3)\n</stdin>'));

    writeFileSync(join(cwd, 'error.log'), 'TypeError at line 3\n');
    const redirected = await runPiped(cwd, { shell: '"$@" < error.log' }, ['-p', 'which line?']);
    expect(redirected.status, redirected.stderr).toBe(0);
    expect(sent(1)).toContain(escaped('which line?\n\n<stdin>\nTypeError at line 3\n</stdin>'));

    // A program that spawned the CLI and left its stdin open: the task runs, nothing waits for an end of input.
    const held = await runPiped(cwd, 'socket', ['-p', 'say hello']);
    expect(held.status, held.stderr).toBe(0);
    expect(held.stdout).toBe('Hello.\n');
    expect(sent(2)).not.toContain('<stdin>');
  });

  it("a pipe a program holds open and never writes to (Java's ProcessBuilder) delays the task a few seconds, never for good, and stderr says how to skip the wait", async () => {
    const cwd = project();
    server.push({ text: 'Hi.' });
    // A FIFO opened read-write: the CLI's stdin is a pipe whose writer (its own fd) never writes nor closes.
    const fifo = join(cwd, 'held');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, 'r+');
    try {
      const silent = await runPiped(cwd, { fd }, ['-p', 'say hi']);
      expect(silent.status, silent.stderr).toBe(0);
      expect(silent.stdout).toBe('Hi.\n');
      expect(silent.stderr).toContain('stdin is a pipe that sent nothing for 3 s and did not end, so the task runs without it');
      expect(sent(0)).not.toContain('<stdin>');
    } finally {
      closeSync(fd);
    }
  });

  it('piped text no prompt can carry (over 16 MiB, binary) is a usage mistake that says what to do, before the model is asked', async () => {
    const cwd = project();
    const huge = await runPiped(cwd, { shell: 'head -c 17000000 /dev/zero | tr "\\000" a | "$@"' }, ['-p', 'summarise']);
    expect(huge.status).toBe(2);
    expect(huge.stderr).toContain('stdin holds more than 16 MiB, more than a prompt can carry: save it to a file and name the file in the task');
    const binary = await runPiped(cwd, { shell: 'printf "PNG\\000\\001" | "$@"' }, ['-p', 'describe the image']);
    expect(binary.status).toBe(2);
    expect(binary.stderr).toContain('stdin holds binary data (a NUL byte, or bytes that are not text)');
    // Without a task as well: the piped text is the task, and the same limits hold.
    const noTask = await runPiped(cwd, { shell: 'printf "a\\000" | "$@"' }, ['-p']);
    expect(noTask.status).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('exits non-zero with the reason on stderr when the turn does not end normally, or there is no task', async () => {
    server.push({ text: 'cut sh', finishReason: 'length' });
    const cut = await print(project(), ['-p', 'long answer']);
    expect(cut.status).toBe(1);
    expect(cut.stderr).toContain('max_tokens');

    // Port 9 is one fetch never connects to: the model call fails at once, without retries to wait out.
    const unreachable = await runCliOnce(['-p', 'hello', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', 'http://127.0.0.1:9/v1'], { cwd: project() });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toContain('the turn failed (model_call_failed)');
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ stopReason: 'error', error: { code: 'model_call_failed' } });

    const empty = await print(project(), ['-p'], '');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('-p needs a task');
    expect(empty.stdout).toBe('');

    // A malformed --allow rule is the command line's mistake, not the config's.
    const rule = await print(project(), ['-p', 'x', '--allow', 'bash(npm test']);
    expect(rule.status).toBe(2);
    expect(rule.stderr).toContain('--allow "bash(npm test": a tool name');
    expect(rule.stderr).not.toContain('Invalid config');

    // A rule naming no tool would allow nothing, silently: the tool it is a typo of is named.
    // An MCP tool (its server connects later) and a glob pass: only the typo is blamed.
    const typo = await print(project(), ['-p', 'x', '--allow', 'mcp__fs__read_file', '--allow', 'wiki_*', '--allow', 'bsh(npm test:*)']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain(`--allow "bsh(npm test:*)": no tool is named 'bsh': did you mean bash?`);
    expect(typo.stderr).not.toMatch(/mcp__fs__read_file|wiki_\*/);

    const stray = await print(project(), ['--output-format', 'json']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain('--output-format goes with -p');
  });

  it('a hosted model without its key: the variable and agent.apiKey named, not the SDK\'s "apiKey parameter"', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/API_KEY$/.test(name))) as Record<string, string>;
    const { spawnSync } = await import('node:child_process');
    const { CLI } = await import('../helpers/acp-cli.js');
    const run = spawnSync(process.execPath, [CLI, '-p', 'hello', '--model', 'anthropic:claude-sonnet-4-5'], { cwd: project(), env, input: '', encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const failed = run.stderr.split('\n').find((line) => line.includes('the turn failed')) ?? '';
    expect(failed).toContain('set ANTHROPIC_API_KEY (or agent.apiKey in .plaited/config.ts)');
    expect(failed).not.toContain("'apiKey' parameter");
  });

  it('a project where .plaited/state cannot be created: the folder and the fix on stderr, no stack trace', async () => {
    // `.plaited` is a file: mkdir fails as it does in a folder the user may not write (root included).
    const cwd = project();
    writeFileSync(join(cwd, '.plaited'), '');
    const run = await print(cwd, ['-p', 'hello']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`cannot create the state folder ${join(cwd, '.plaited', 'state')}`);
    expect(run.stderr).toContain(`make ${join(cwd, '.plaited')} a folder you can write`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(0);
  });
});

describe('plaited-agent -p and Ctrl-C', () => {
  it('SIGINT cancels the running turn: the partial result is still printed, exit 130', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/acp-cli.js');
    const { waitFor } = await import('../helpers/wait-for.js');
    server.push({ text: 'never sent', until: new Promise(() => undefined) });
    const child = spawn(process.execPath, [CLI, '-p', 'take your time', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', server.url], {
      cwd: project(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    await waitFor(() => server.open() === 1, 20_000, 'the model call');
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain('the turn was cancelled');
    expect(JSON.parse(stdout)).toMatchObject({ stopReason: 'cancelled' });
  });
});
