import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { CLI, initialize, startAcpCli } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const bed = acpTestBed({ prefix: 'plaited-downloads-' });

/** How the file host behaves: answer nothing, send half then stall, or serve the files. */
type HostMode = 'silent' | 'stall-midway' | { files: Record<string, string> };

let host: Server | undefined;
/** The paths asked of the file host, in order. */
let asked: string[] = [];
afterEach(async () => {
  host?.closeAllConnections();
  await new Promise<void>((done) => (host ? host.close(() => done()) : done()));
  host = undefined;
});

async function startHost(mode: HostMode): Promise<string> {
  asked = [];
  host = createServer((request, response) => {
    asked.push(request.url ?? '');
    if (mode === 'silent') return; // accepts the connection, never answers
    if (mode === 'stall-midway') {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 2_000_000 });
      response.write(Buffer.alloc(100_000, 1)); // then nothing more, connection left open
      return;
    }
    const file = mode.files[request.url ?? ''];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    const body = readFileSync(file);
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  await new Promise<void>((listening) => host!.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}

/** The CLI run to its end, asynchronously (the host answers from this process). */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const cacheDir = () => mkdtempSync(join(tmpdir(), 'plaited-model-cache-'));

describe('models pull', () => {
  it('gives up on a host that never answers after the connect timeout, naming it', async () => {
    const base = await startHost('silent');
    const result = await runCli(['models', 'pull', `${base}/x.gguf`, '--cache-dir', cacheDir(), '--connect-timeout', '500']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Fetching ${base}/x.gguf`);
    expect(result.stderr).toContain('no answer within 500 ms (connect timeout)');
    expect(result.stdout).toBe('');
  });

  it('gives up on a download that stops sending after the read timeout', async () => {
    const base = await startHost('stall-midway');
    const result = await runCli(['models', 'pull', `${base}/x.gguf`, '--cache-dir', cacheDir(), '--connect-timeout', '5000', '--read-timeout', '700']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no data for 700 ms (read timeout)');
  });

  it('shows progress for a file it downloads and prints the path', async () => {
    const model = requireTestModel('PLAITED_TEST_CHAT_MODEL');
    const base = await startHost({ files: { '/tiny.gguf': model } });
    const dir = cacheDir();
    const result = await runCli(['models', 'pull', `${base}/tiny.gguf`, '--cache-dir', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`Downloading ${base}/tiny.gguf 100% 1\\.8/1\\.8 MB`));
    const path = result.stdout.trim();
    expect(path.startsWith(dir)).toBe(true);
    expect(readFileSync(path).equals(readFileSync(model))).toBe(true);
  });
});

describe('first-use downloads', () => {
  it('leave the embedder alone while nothing needs a vector: a turn with nothing to index fetches nothing', async () => {
    const base = await startHost({ files: { '/embed.gguf': requireTestModel('PLAITED_TEST_EMBED_MODEL') } });
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: `${base}/embed.gguf`, threads: 1 } }));
    const cli = bed.start(cwd, { env: { PLAITED_MODELS_DIR: cacheDir() } });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'hello' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    // Closing waits for whatever the agent opened: an embedder loaded with the session would have been fetched by now.
    await bed.closeNow(cli);
    expect(asked).toEqual([]);
    expect(cli.stderr()).not.toContain('embedder');
  });

  it('show progress for the chat model and the embedder on stderr, stdout staying protocol only', async () => {
    const chat = requireTestModel('PLAITED_TEST_CHAT_MODEL');
    const embed = requireTestModel('PLAITED_TEST_EMBED_MODEL');
    const base = await startHost({ files: { '/chat.gguf': chat, '/embed.gguf': embed } });
    const cwd = bed.project();
    // A skill to index: the embedder loads (and so downloads) when something first needs a vector.
    mkdirSync(join(cwd, '.plaited/skills/notes'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/skills/notes/SKILL.md'), '---\nname: notes\ndescription: Keep short notes about the project.\n---\n\nWrite notes.\n');
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({
        agent: { model: `llama-cpp:${base}/chat.gguf`, threads: 1, contextSize: 8192, maxOutputTokens: 4 },
        embedder: { model: `${base}/embed.gguf`, threads: 1 },
      }),
    );
    const models = cacheDir();
    const cli = bed.track(startAcpCli({ cwd, args: [], env: { PLAITED_MODELS_DIR: models } }));
    await initialize(cli, { session: { notices: {} } } as never);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(['end_turn', 'max_tokens']).toContain(response.stopReason);
    expect(cli.stderr()).toMatch(new RegExp(`Downloading ${base}/chat.gguf 100%`));
    expect(cli.stderr()).toMatch(new RegExp(`Downloading embedder ${base}/embed.gguf 100%`));
    expect(existsSync(join(models, 'chat.gguf'))).toBe(true);
    // The client of the turn that started the download sees its progress as notices.
    const notices = cli.updates
      .filter((n) => n.sessionId === sessionId && (n.update.sessionUpdate as string) === 'notice')
      .map((n) => String((n.update as unknown as { description: string }).description));
    expect(notices).toContainEqual(expect.stringMatching(new RegExp(`^Downloading the model ${base}/chat.gguf: 100% \\(1\\.8/1\\.8 MB\\)`)));
    expect(cli.rawResponses).toEqual([]);
  }, 120_000);
});
