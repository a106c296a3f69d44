import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { CLI, initialize, startAcpCli } from '../helpers/acp-cli.js';

const bed = acpTestBed({ prefix: 'plaited-model-errors-' });

/** Runs the CLI until it exits; stdin stays open so only a start-up refusal ends it. */
function runUntilExit(args: string[], cwd: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI did not refuse to start: ${stderr}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stderr, stdout });
    });
  });
}

let httpServer: Server | undefined;
afterEach(async () => {
  await new Promise<void>((done) => (httpServer ? httpServer.close(() => done()) : done()));
  httpServer = undefined;
});

describe('model settings a newcomer gets wrong', () => {
  it('refuses --model without a provider at start, saying how to write it', async () => {
    const result = await runUntilExit(['--model', 'gpt4'], bed.project());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"gpt4" names no provider');
    expect(result.stderr).toContain('openai-compatible:gpt4');
    expect(result.stdout).toBe('');
  });

  it('refuses a base URL without a scheme at start and suggests the fix', async () => {
    const result = await runUntilExit(['--model', 'openai-compatible:llama3', '--base-url', 'localhost:11434'], bed.project());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean --base-url http://localhost:11434/v1');
  });

  it('names the URL and the fix when the base URL is not an OpenAI-compatible API', async () => {
    // What `python3 -m http.server` answers to a POST.
    httpServer = createServer((request, response) => {
      response.writeHead(501, { 'content-type': 'text/html' });
      response.end(`<html><body><h1>Error response</h1><p>Message: Unsupported method ('${request.method}').</p></body></html>`);
    });
    await new Promise<void>((listening) => httpServer!.listen(0, '127.0.0.1', listening));
    const base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:x', '--base-url', base] }));
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const failure = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data?: unknown },
    );
    expect(failure?.code).toBe(-32603);
    const said = `${failure?.message} ${JSON.stringify(failure?.data)}`;
    expect(said).toContain(`${base}/chat/completions`);
    expect(said).toContain('not an OpenAI-compatible chat API');
    expect(said).toContain('/v1');
  });

  it('names the URL when the model server is not running', async () => {
    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:x', '--base-url', 'http://127.0.0.1:9/v1'] }));
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const failure = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }).then(
      () => undefined,
      (error: unknown) => error as { message: string; data?: unknown },
    );
    expect(`${failure?.message} ${JSON.stringify(failure?.data)}`).toContain('Cannot reach the model endpoint http://127.0.0.1:9/v1/chat/completions');
  });
});
