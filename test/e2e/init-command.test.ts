import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

// `plaited-agent init` through the built CLI (issue 25, item 4): what it detects, what it writes,
// that what it wrote loads as the project's config, and that it never overwrites.
let model: ScriptedOpenAIServer;
let ollama: Server;
let ollamaHost: string;
beforeEach(async () => {
  model = await startScriptedOpenAIServer();
  // A real HTTP server in Ollama's shape: /api/tags lists the scripted model, the OpenAI-compatible
  // API under /v1 is the scripted model's.
  ollama = createServer((req, res) => {
    if (req.url === '/api/tags') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ models: [{ name: 'scripted' }] }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void fetch(`${model.url}${req.url!.replace(/^\/v1/, '')}`, { method: req.method, headers: { 'content-type': 'application/json' }, ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}) }).then(async (reply) => {
        res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await reply.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((done) => ollama.listen(0, '127.0.0.1', done));
  ollamaHost = `127.0.0.1:${(ollama.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((done) => ollama.close(done));
  await model.close();
});

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '', OPENROUTER_API_KEY: '', DEEPSEEK_API_KEY: '', GROQ_API_KEY: '' };
const project = () => mkdtempSync(join(tmpdir(), 'plaited-init-'));

describe('plaited-agent init', () => {
  it('finds a local Ollama server, writes a commented config that loads (trusted) and an AGENTS.md', async () => {
    const cwd = project();
    const run = await runCliOnce(['init'], { cwd, env: { ...NO_KEYS, OLLAMA_HOST: ollamaHost } });
    expect(run.status, run.stderr).toBe(0);
    const config = readFileSync(join(cwd, '.plaited/config.ts'), 'utf8');
    expect(config).toContain("model: 'ollama:scripted'");
    expect(config).toContain(`baseURL: 'http://${ollamaHost}/v1'`);
    expect(config).toMatch(/^\/\/ /m);
    expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toContain('# Rules for agents');
    expect(run.stdout).toContain('plaited-agent trust');

    // No --model: the answer can only come through the config init wrote.
    model.push({ text: 'Configured by init.' });
    const answer = await runCliOnce(['-p', 'hello'], { cwd, trust: false });
    expect(answer.stderr).not.toContain('not trusted');
    expect(answer.status, answer.stderr).toBe(0);
    expect(answer.stdout).toBe('Configured by init.\n');
  });

  it('names the provider whose key is set', async () => {
    const cwd = project();
    const run = await runCliOnce(['init'], { cwd, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', OLLAMA_HOST: '127.0.0.1:9' } });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(cwd, '.plaited/config.ts'), 'utf8')).toContain("model: 'anthropic:claude-sonnet-4-5', // ANTHROPIC_API_KEY is set");
  });

  it('never overwrites a config or an AGENTS.md that exist', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'AGENTS.md'), 'my own rules\n');
    const first = await runCliOnce(['init'], { cwd, env: { ...NO_KEYS, OLLAMA_HOST: '127.0.0.1:9' } });
    expect(first.status, first.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toBe('my own rules\n');
    expect(readFileSync(join(cwd, '.plaited/config.ts'), 'utf8')).toContain('No model found');
    writeFileSync(join(cwd, '.plaited/config.ts'), 'export default {};\n');
    const second = await runCliOnce(['init'], { cwd, env: { ...NO_KEYS, OLLAMA_HOST: ollamaHost }, trust: false });
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('nothing overwritten');
    expect(readFileSync(join(cwd, '.plaited/config.ts'), 'utf8')).toBe('export default {};\n');
  });

  it('a project it cannot write to: the file, the cause and the fix on stderr, nothing on stdout', async () => {
    // `.plaited` is a file: mkdir fails as it does in a folder the user may not write (root included).
    const cwd = project();
    writeFileSync(join(cwd, '.plaited'), '');
    const run = await runCliOnce(['init'], { cwd, env: { ...NO_KEYS, OLLAMA_HOST: '127.0.0.1:9' }, trust: false });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`plaited-agent init: cannot write ${join(cwd, '.plaited', 'config.ts')}`);
    expect(run.stderr).toContain(`make ${join(cwd, '.plaited')} a folder you can write`);
  });
});
