import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

/**
 * `plaited-agent models list` asks each configured provider's endpoint for its models (the
 * OpenAI-compatible /v1/models, Ollama's /api/tags, Anthropic's /v1/models) and marks the
 * configured ones; through the built CLI, against local servers answering in those APIs' shapes.
 */

let openai: ScriptedOpenAIServer | undefined;
let lists: Server | undefined;
const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
afterEach(async () => {
  await openai?.close();
  lists?.closeAllConnections();
  await new Promise<void>((done) => (lists ? lists.close(() => done()) : done()));
  seen.length = 0;
});

/** Anthropic's model list (GET /v1/models) and Ollama's tags (GET /api/tags), as those APIs answer. */
async function startListServer(): Promise<string> {
  lists = createServer((request, response) => {
    seen.push({ path: request.url ?? '', headers: request.headers });
    const path = (request.url ?? '').split('?')[0];
    response.setHeader('content-type', 'application/json');
    if (path === '/v1/models' && request.headers['x-api-key'] === 'sk-ant-list') {
      const model = (id: string, name: string) => ({ type: 'model', id, display_name: name, created_at: '2025-09-29T00:00:00Z' });
      response.end(JSON.stringify({ data: [model('claude-sonnet-4-5', 'Claude Sonnet 4.5'), model('claude-opus-4-1', 'Claude Opus 4.1')], has_more: false, first_id: 'claude-sonnet-4-5', last_id: 'claude-opus-4-1' }));
    } else if (path === '/v1/models') {
      response.writeHead(401).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    } else if (path === '/api/tags') {
      response.end(JSON.stringify({ models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest', size: 2019393189, digest: 'a80c4f17acd5' }, { name: 'qwen2.5-coder:7b', model: 'qwen2.5-coder:7b', size: 4683087332, digest: '2b0496514337' }] }));
    } else response.writeHead(404).end('{}');
  });
  await new Promise<void>((listening) => lists!.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(lists.address() as AddressInfo).port}`;
}

function runCli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('models list', () => {
  it("lists each configured endpoint's models, the configured ones marked", async () => {
    openai = await startScriptedOpenAIServer();
    const host = await startListServer();
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-models-list-'));
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({
        agent: {
          model: 'openai-compatible:scripted',
          baseURL: openai.url,
          models: [{ name: 'local', model: 'ollama:qwen2.5-coder:7b', baseURL: `${host}/v1` }],
        },
      }),
    );
    trustProjectConfig(cwd);
    const cache = mkdtempSync(join(tmpdir(), 'plaited-models-cache-'));
    const listed = await runCli(cwd, ['models', 'list', '--cache-dir', cache]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`openai-compatible: ${openai.url}/models\n  * openai-compatible:scripted\n`);
    expect(listed.stdout).toContain(`ollama: ${host}/api/tags\n    ollama:llama3.2:latest\n  * ollama:qwen2.5-coder:7b\n`);

    // --model and --base-url stand for agent.model: the Anthropic list, with its key and version headers.
    const anthropic = await runCli(cwd, ['models', 'list', '--cache-dir', cache, '--model', 'anthropic:claude-opus-4-1', '--base-url', `${host}/v1`, '--json'], {
      ANTHROPIC_API_KEY: 'sk-ant-list',
    });
    expect(anthropic.code, anthropic.stderr).toBe(0);
    const endpoints = (JSON.parse(anthropic.stdout) as { endpoints: Array<{ provider: string; models: Array<{ id: string; configured: boolean }> }> }).endpoints;
    expect(endpoints.find((endpoint) => endpoint.provider === 'anthropic')?.models).toEqual([
      { id: 'claude-sonnet-4-5', configured: false },
      { id: 'claude-opus-4-1', configured: true },
    ]);
    expect(endpoints.map((endpoint) => endpoint.provider)).not.toContain('openai-compatible');
    expect(seen.find((request) => request.path.startsWith('/v1/models'))?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('an endpoint that refuses the key is named with its answer, and the command fails', async () => {
    const host = await startListServer();
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-models-list-'));
    const result = await runCli(cwd, ['models', 'list', '--cache-dir', cwd, '--model', 'anthropic:claude-sonnet-4-5', '--base-url', `${host}/v1`], { ANTHROPIC_API_KEY: 'sk-wrong' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`anthropic: ${host}/v1/models?limit=1000 answered HTTP 401`);
    expect(result.stderr).toContain('check the API key');
    expect(result.stdout).toContain('  * anthropic:claude-sonnet-4-5');
  });

  it('a model it cannot list (no such provider, no base URL) is a usage error naming the fix, not silently left out', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-models-list-'));
    const unknown = await runCli(cwd, ['models', 'list', '--cache-dir', cwd, '--model', 'nope:x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nope"');
    const noBase = await runCli(cwd, ['models', 'list', '--cache-dir', cwd, '--model', 'openai-compatible:x']);
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toContain('needs a base URL');
  });
});
