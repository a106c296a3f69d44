import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { startProviderWireServer } from '../helpers/provider-wire-server.js';
import { runCliOnce } from '../helpers/run-cli-once.js';

/**
 * The first run: no model configured, no network. The built CLI falls back to its default
 * local model, whose download cannot happen here (the model hub is pointed at a closed port on
 * 127.0.0.1 through HF_ENDPOINT, which node-llama-cpp's downloader honours): the client is told
 * in the turn that no model is configured and how to set one, never a bare "Internal error".
 */

const clis: AcpCli[] = [];
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
});

async function closedPort(): Promise<string> {
  const server = await startProviderWireServer();
  await server.close();
  return server.url;
}

describe('no model configured, offline', () => {
  it('the turn says no model is configured and how to set one; the session goes on', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-first-run-'));
    const cli = startAcpCli({
      cwd,
      args: [],
      env: {
        HF_ENDPOINT: await closedPort(),
        PLAITED_MODELS_DIR: mkdtempSync(join(tmpdir(), 'plaited-first-run-models-')),
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        PLAITED_API_KEY: '',
      },
    });
    clis.push(cli);
    await initialize(cli, { session: { notices: {} } } as never);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const prompt = () => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const error = await prompt().then(
      () => ({ code: 0, message: 'the prompt succeeded', data: undefined }),
      (failure: unknown) => failure as { code: number; message: string; data?: { code?: string } },
    );
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('No model configured');
    expect(error.message).toContain('hf:ggml-org/functiongemma-270m-it-GGUF');
    expect(error.message).toContain('--model');
    expect(error.message).toContain('agent.model');
    expect(error.data?.code).toBe('model_not_configured');

    const told = cli.updates
      .filter((n) => n.sessionId === sessionId && (n.update.sessionUpdate as string) === 'notice')
      .map((n) => String((n.update as unknown as { description: string }).description));
    expect(told).toEqual([expect.stringMatching(/^No model configured: using the default local model .*pass --model/)]);

    // Still alive, and still saying it.
    await expect(prompt()).rejects.toMatchObject({ message: expect.stringContaining('No model configured') });
  });

  it('-p says it once: exit 1, no model configured, the cause named a single time', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-first-run-'));
    const run = await runCliOnce(['-p', 'hi'], {
      cwd,
      env: { HF_ENDPOINT: await closedPort(), PLAITED_MODELS_DIR: mkdtempSync(join(tmpdir(), 'plaited-first-run-models-')), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', PLAITED_API_KEY: '' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const failed = run.stderr.split('\n').find((line) => line.includes('the turn failed (model_not_configured)')) ?? '';
    expect(failed).toContain('No model configured');
    // The file init writes, not only the JSON one.
    expect(failed).toContain('agent.model in the project\'s .plaited/config.ts');
    expect(failed.split('Could not resolve model').length - 1).toBe(1);
    // Nor said again above it: the failed model call is logged at debug, since this line names it.
    expect(run.stderr.split('Could not resolve model').length - 1).toBe(1);
  });
});
