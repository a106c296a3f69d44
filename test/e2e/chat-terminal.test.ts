import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

/** `plaited-agent chat` in a real terminal: tmux on its own server socket, driven by send-keys, read by capture-pane. */
let server: ScriptedOpenAIServer;
let socket: string;
let release: () => void = () => undefined;
let panes = 0;

beforeEach(async () => {
  server = await startScriptedOpenAIServer();
  socket = `plaited-chat-${process.pid}-${Date.now()}`;
});
afterEach(async () => {
  release();
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // already gone
  }
  await server.close();
});

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

/** Starts the chat in a new pane; what it printed after it exits stays readable (`cat` holds the pane). */
function startChat(cwd: string, extra: string[] = [], env: Record<string, string> = {}): string {
  const name = `chat${(panes += 1)}`;
  const argv = [process.execPath, CLI, 'chat', '--model', 'openai-compatible:scripted', '--base-url', server.url, ...extra];
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}' `).join('');
  const command = `cd '${cwd}' && ${assignments}${argv.map((arg) => `'${arg}'`).join(' ')}; echo "chat exited $?"; exec cat`;
  tmux('new-session', '-d', '-s', name, '-x', '150', '-y', '50', command);
  return name;
}

/** Runs `argv` in a new pane (a real terminal on stdout and stderr); the pane stays after it exits. */
function startInPane(cwd: string, argv: string[]): string {
  const name = `run${(panes += 1)}`;
  tmux('new-session', '-d', '-s', name, '-x', '150', '-y', '50', `cd '${cwd}' && ${argv.map((arg) => `'${arg}'`).join(' ')}; echo "exited $?"; exec cat`);
  return name;
}

/** Types a line at the chat's prompt and presses Enter. */
const typeLine = (name: string, text: string) => {
  tmux('send-keys', '-t', name, '-l', text);
  tmux('send-keys', '-t', name, 'Enter');
};

const pane = (name: string) => tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', name);
const waitForPane = (name: string, text: string, timeoutMs = 20_000) => waitFor(() => pane(name).includes(text), timeoutMs, `"${text}" in the pane:\n${pane(name)}`);

describe('plaited-agent chat in a terminal', () => {
  it('streams the answer, asks a permission with a key, cancels a turn with Ctrl-C, leaves with Ctrl-D, and resumes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-chat-'));
    const chat = startChat(cwd);
    await waitForPane(chat, 'plaited-agent chat · session ');
    await waitForPane(chat, '› ');
    const sessionId = /session ([0-9a-f-]{36})/.exec(pane(chat))![1]!;
    // The bare server's hint ("run plaited-agent chat") is not for someone who did.
    expect(pane(chat)).not.toContain('Agent Client Protocol server for editors');

    // A tool call that needs permission: the question shows with its keys; `y` answers it.
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi there\n' } }] }, { text: 'Wrote hello.txt for you.' });
    typeLine(chat, 'please write hello');
    await waitForPane(chat, '? Allow Write hello.txt?');
    // The question shows the change it would allow, before the answer.
    expect(pane(chat)).toContain('+ hi there');
    expect(pane(chat)).toContain('[y] Allow once');
    expect(pane(chat)).toContain('[n] Reject');
    expect(pane(chat)).toContain('⏺ Write hello.txt');
    tmux('send-keys', '-t', chat, 'y');
    await waitForPane(chat, 'Wrote hello.txt for you.');
    expect(readFileSync(join(cwd, 'hello.txt'), 'utf8')).toBe('hi there\n');
    expect(pane(chat)).toContain('+ hi there');

    // Ctrl-C while the model is answering cancels the turn; the chat goes on.
    const held = new Promise<void>((resolve) => (release = resolve));
    server.push({ text: 'never shown', until: held });
    const asked = server.requests.length;
    typeLine(chat, 'tell me a long story');
    await waitFor(() => server.requests.length > asked, 20_000, 'the model asked');
    tmux('send-keys', '-t', chat, 'C-c');
    await waitForPane(chat, '[turn cancelled]');
    expect(pane(chat)).not.toContain('never shown');
    // A cancelled model call is no failure: nothing is warned about.
    expect(pane(chat)).not.toContain('warn: model call');
    release();

    // Slash commands go to the agent itself.
    typeLine(chat, '/permissions');
    await waitForPane(chat, 'Permission rules for');

    // Ctrl-D at the prompt leaves, saying how to go on.
    tmux('send-keys', '-t', chat, 'C-d');
    await waitForPane(chat, 'chat exited 0');
    expect(pane(chat)).toContain(`plaited-agent chat --resume ${sessionId}`);

    // --resume goes on with the same history.
    const resumed = startChat(cwd, ['--resume', sessionId]);
    await waitForPane(resumed, `session ${sessionId} (resumed)`);
    await waitForPane(resumed, '› ');
    server.push({ text: 'Still here.' });
    const before = server.requests.length;
    typeLine(resumed, 'are you there');
    await waitForPane(resumed, 'Still here.');
    expect(JSON.stringify(server.requests[before]!.messages)).toContain('please write hello');
  });

  it('runs its commands under the command sandbox when the config turns it on', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-chat-'));
    const home = mkdtempSync(join(tmpdir(), 'plaited-chat-home-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_chat'), 'chat-key-never-for-commands\n');
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited', 'config.json'), JSON.stringify({ tools: { allow: ['bash'] }, adapters: { sandbox: { commands: true } } }));
    trustProjectConfig(cwd, [], { HOME: home });
    const chat = startChat(cwd, [], { HOME: home });
    await waitForPane(chat, '› ');

    // The sandbox keeps ~/.ssh unreadable; the thin layer without it would not.
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'cat ~/.ssh/id_chat' } }] }, { text: 'Read attempted.' });
    const before = server.requests.length;
    typeLine(chat, 'show me the key');
    await waitForPane(chat, 'Read attempted.');
    const toolResult = JSON.stringify(server.requests[before + 1]!.messages.at(-1));
    expect(toolResult).toContain('id_chat');
    expect(toolResult).not.toContain('chat-key-never-for-commands');

    // A finished command shows the first lines of what it printed; the model gets all of it.
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'seq 1 9 | sed s/^/row-/' } }] }, { text: 'Counted.' });
    typeLine(chat, 'count');
    await waitForPane(chat, 'Counted.');
    expect(pane(chat)).toContain('  │ Exit code: 0\n  │ row-1\n  │ row-2\n  │ row-3\n  │ … 6 more lines\n  ✓ done\n');
    tmux('send-keys', '-t', chat, 'C-d');
    await waitForPane(chat, 'chat exited 0');
  });

  it('--resume takes any unique beginning of a session id, as sessions and -p do; an unknown one says where the ids are', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-chat-'));
    const first = startChat(cwd);
    await waitForPane(first, '› ');
    const sessionId = /session ([0-9a-f-]{36})/.exec(pane(first))![1]!;
    tmux('send-keys', '-t', first, 'C-d');
    await waitForPane(first, 'chat exited 0');
    const resumed = startChat(cwd, ['--resume', sessionId.slice(0, 8)]);
    await waitForPane(resumed, `session ${sessionId} (resumed)`);
    const unknown = startChat(cwd, ['--resume', 'no-such-session']);
    await waitForPane(unknown, 'chat exited 2');
    expect(pane(unknown)).toContain('no session no-such-session');
    expect(pane(unknown)).toContain('plaited-agent sessions list shows them');
  });

  it('shows the control characters the model wrote and never runs them: the question names the whole command, an answer cannot rewrite the screen; -p and sessions export too', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-chat-'));
    const chat = startChat(cwd);
    await waitForPane(chat, '› ');
    // Raw, the carriage return and erase-line would wipe "echo planted-danger" from the question's line.
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'echo planted-danger\r\u001b[2K echo harmless' } }] }, { text: 'Retitled \u001b]0;pwned\u0007 and \u001b[2J cleared.' });
    typeLine(chat, 'try it');
    await waitForPane(chat, '[n] Reject');
    expect(pane(chat)).toContain('? Allow Run: echo planted-danger\\u000d\\u001b[2K echo harmless?');
    tmux('send-keys', '-t', chat, 'n');
    await waitForPane(chat, 'cleared.');
    // A command of many lines: the title names its first, the question shows them all.
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'echo first-line\nrm -rf planted-second-line' } }] }, { text: 'Asked about both lines.' });
    typeLine(chat, 'two lines');
    await waitForPane(chat, '? Allow Run: echo first-line…?');
    await waitForPane(chat, '$ rm -rf planted-second-line');
    expect(pane(chat)).toContain('  $ echo first-line\n  $ rm -rf planted-second-line\n');
    tmux('send-keys', '-t', chat, 'n');
    await waitForPane(chat, 'Asked about both lines.');
    expect(pane(chat)).toContain('Retitled \\u001b]0;pwned\\u0007 and \\u001b[2J cleared.');
    expect(pane(chat)).toContain('plaited-agent chat · session ');
    tmux('send-keys', '-t', chat, 'C-d');
    await waitForPane(chat, 'chat exited 0');

    // -p answering on a terminal, and a stored transcript read on one.
    server.push({ text: 'Coloured \u001b[31mred\u001b[0m.' });
    const printed = startInPane(cwd, [process.execPath, CLI, '-p', 'colour it', '--model', 'openai-compatible:scripted', '--base-url', server.url]);
    await waitForPane(printed, 'exited 0');
    expect(pane(printed)).toContain('Coloured \\u001b[31mred\\u001b[0m.');
    const sessions = JSON.parse(execFileSync(process.execPath, [CLI, 'sessions', 'list', '--format', 'json'], { cwd, encoding: 'utf8' })) as Array<{ sessionId: string; title: string }>;
    const colourId = sessions.find((session) => session.title === 'colour it')!.sessionId;
    const exported = startInPane(cwd, [process.execPath, CLI, 'sessions', 'export', colourId]);
    await waitForPane(exported, 'exited 0');
    expect(pane(exported)).toContain('Coloured \\u001b[31mred\\u001b[0m.');
  });

  it('trust names every file it records on a terminal, even one whose name holds an escape sequence that would erase the line above', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-trust-'));
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited', 'hide\u001b[1A\u001b[2K.ts'), 'export const mode = "default";\n');
    writeFileSync(join(cwd, '.plaited', 'config.ts'), 'import { mode } from "./hide\\u001b[1A\\u001b[2K.ts";\nexport default { agent: { defaultMode: mode } };\n');
    const trusted = startInPane(cwd, [process.execPath, CLI, 'trust']);
    await waitForPane(trusted, 'exited 0');
    expect(pane(trusted)).toContain('(2 files)');
    expect(pane(trusted)).toMatch(/[0-9a-f]{64} {2}\.plaited\/config\.ts\n/);
    expect(pane(trusted)).toContain('.plaited/hide\\u001b[1A\\u001b[2K.ts');
  });

  it('refuses to run without a terminal, pointing to -p', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-chat-'));
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [CLI, 'chat', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd, input: '', stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr).toContain('chat needs a terminal on stdin');
  });
});
