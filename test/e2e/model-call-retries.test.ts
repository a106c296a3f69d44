import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { RECORDED, startProviderWireServer, WIRE_KEY_ENV, WIRE_MODELS, wireErrors, type ProviderWire, type ProviderWireServer } from '../helpers/provider-wire-server.js';
import { checkedClis } from '../helpers/acp-test-bed.js';
import { closeChecked } from '../helpers/close-checked.js';

/**
 * Model calls that fail for a while: 429/5xx are retried after the server's `retry-after`
 * (or a backoff), each retry told to the client as a notice; 401/404 are not retried; what
 * still fails says what happened and what to do. Through the built CLI against a local
 * server speaking the providers' real wire formats.
 */

const KEY_ENV = WIRE_KEY_ENV;
const MODELS = WIRE_MODELS;

const bed = checkedClis(() => startProviderWireServer());

/**
 * The tests that need no config and no address of their own share one provider server and one CLI
 * per wire, a session each: a CLI start costs about 2 s of CPU on the 2-core machine, and this file
 * started ten. The shared server's request log is emptied before each test; each test uses up the
 * replies it queues. The shared CLIs are closed and their ACP traffic checked after the file.
 */
const shared = (() => {
  let server: ProviderWireServer | undefined;
  const clis = new Map<ProviderWire, { cli: AcpCli; ready: Promise<{ cli: AcpCli; cwd: string }> }>();
  beforeAll(async () => {
    server = await startProviderWireServer();
  });
  beforeEach(() => {
    server?.requests.splice(0);
  });
  afterAll(async () => {
    for (const { cli } of clis.values()) {
      await closeChecked(cli);
    }
    await server?.close();
  });
  return {
    get server(): ProviderWireServer {
      if (!server) throw new Error('the shared provider server starts in beforeAll');
      return server;
    },
    cli(wire: ProviderWire): Promise<{ cli: AcpCli; cwd: string }> {
      let started = clis.get(wire);
      if (!started) {
        const cwd = mkdtempSync(join(tmpdir(), 'plaited-model-retries-'));
        const cli = startWireCli(wire, cwd, this.server.baseURL(wire));
        started = { cli, ready: initialize(cli, { session: { notices: {} } } as never).then(() => ({ cli, cwd })) };
        clis.set(wire, started);
      }
      return started.ready;
    },
  };
})();

function startWireCli(wire: ProviderWire, cwd: string, baseURL: string): AcpCli {
  return startAcpCli({ cwd, args: ['--model', `${wire}:${MODELS[wire]}`, '--base-url', baseURL], env: { [KEY_ENV[wire]]: 'wire-test-key' } });
}

/** A session on the wire's shared CLI, or, with a config or an address of its own, on a CLI of its own. */
async function session(wire: ProviderWire, options: { config?: Record<string, unknown>; baseURL?: string } = {}) {
  let cli: AcpCli;
  let cwd: string;
  if (options.config === undefined && options.baseURL === undefined) {
    ({ cli, cwd } = await shared.cli(wire));
  } else {
    cwd = mkdtempSync(join(tmpdir(), 'plaited-model-retries-'));
    if (options.config) {
      mkdirSync(join(cwd, '.plaited'), { recursive: true });
      writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(options.config));
    }
    cli = bed.track(startWireCli(wire, cwd, options.baseURL ?? bed.server.baseURL(wire)));
    await initialize(cli, { session: { notices: {} } } as never);
  }
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const prompt = (text: string) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { cli, sessionId, prompt };
}

function notices(cli: AcpCli, sessionId: string): string[] {
  return cli.updates
    .filter((n) => n.sessionId === sessionId && (n.update.sessionUpdate as string) === 'notice')
    .map((n) => String((n.update as unknown as { description: string }).description));
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  return promise.then(
    () => ({ code: 0, message: 'the prompt succeeded' }),
    (error: unknown) => error as { code: number; message: string },
  );
}

describe('retries', () => {
  it('a 429 with retry-after is retried: the client sees the retry as a notice, then the answer', async () => {
    shared.server.push(wireErrors.rateLimited('anthropic', 0), { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    const { cli, sessionId, prompt } = await session('anthropic');
    expect((await prompt('hi')).stopReason).toBe('end_turn');
    expect(shared.server.requests).toHaveLength(2);
    expect(agentText(cli, sessionId)).toContain('Is there anything I can help you with?');
    const [notice] = notices(cli, sessionId);
    expect(notice).toContain('HTTP 429 (rate limited)');
    expect(notice).toContain('retrying in 0 ms (attempt 2 of 4)');
  });

  it('a retry-after given as an HTTP date and a 503 are honoured and retried too', async () => {
    const past = { ...wireErrors.rateLimited('google', 0), headers: { 'retry-after': new Date(Date.now() - 5000).toUTCString() } };
    shared.server.push(past, { wire: 'google', status: 503, body: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }, headers: { 'retry-after': '0' } });
    shared.server.push({ wire: 'google', events: [RECORDED.google.text] });
    const { cli, sessionId, prompt } = await session('google');
    expect((await prompt('hi')).stopReason).toBe('end_turn');
    expect(shared.server.requests).toHaveLength(3);
    expect(notices(cli, sessionId)).toEqual([expect.stringContaining('retrying in 0 ms (attempt 2 of 4)'), expect.stringContaining('HTTP 503')]);
    expect(agentText(cli, sessionId)).toContain('strawberry');
  });

  it('a refused key (401) and a missing model (404) are answered at once, never retried', async () => {
    shared.server.push(wireErrors.unauthorized('openai'));
    const keyless = await session('openai');
    expect((await failure(keyless.prompt('hi'))).message).toContain('OPENAI_API_KEY');
    expect(shared.server.requests).toHaveLength(1);

    shared.server.push(wireErrors.modelNotFound('anthropic', MODELS.anthropic));
    const missing = await session('anthropic');
    expect((await failure(missing.prompt('hi'))).message).toContain('Model not found');
    expect(shared.server.requests).toHaveLength(2);
    expect(notices(keyless.cli, keyless.sessionId)).toEqual([]);
    expect(notices(missing.cli, missing.sessionId)).toEqual([]);
  });

  it('still rate limited after agent.retries.attempts: the error says so and what to do', async () => {
    bed.server.push(wireErrors.rateLimited('openai', 0), wireErrors.rateLimited('openai', 0));
    const { cli, sessionId, prompt } = await session('openai', { config: { agent: { retries: { attempts: 2 } } } });
    const error = await failure(prompt('hi'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('Rate limited');
    expect(error.message).toContain('HTTP 429 after 2 attempts');
    expect(error.message).toContain('agent.retries');
    expect(bed.server.requests).toHaveLength(2);
    expect(notices(cli, sessionId)).toHaveLength(1);
  });

  it('cancelling the turn ends a retry wait', async () => {
    shared.server.push(wireErrors.rateLimited('anthropic', 50));
    const { cli, sessionId, prompt } = await session('anthropic');
    const turn = prompt('hi');
    await waitFor(() => notices(cli, sessionId).length === 1, 20_000, 'the retry notice');
    await cli.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(shared.server.requests).toHaveLength(1);
  });
});

describe('an endpoint that is down', () => {
  it("names the native provider's API and its default address, not an OpenAI-compatible /v1", async () => {
    const closed = await startProviderWireServer();
    const baseURL = closed.baseURL('anthropic');
    await closed.close();
    const { prompt } = await session('anthropic', { baseURL });
    const error = await failure(prompt('hi'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('Cannot reach the model endpoint');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('the Anthropic API (by default https://api.anthropic.com/v1)');
    expect(error.message).not.toContain('OpenAI-compatible');
  });
});

describe('errors that say what to do', () => {
  it("a base URL that is not the provider's API names the API and its default address", async () => {
    shared.server.push({ wire: 'openai', status: 405, body: '<html>Method Not Allowed</html>', headers: { 'content-type': 'text/html' } });
    const { prompt } = await session('openai');
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('is not the OpenAI API (HTTP 405');
    expect(error.message).toContain('by default https://api.openai.com/v1');
    expect(error.message).not.toContain('OpenAI-compatible');
  });

  it('a prompt over the context window says so and how to go on, unretried', async () => {
    const tooLong = { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 212345 tokens > 200000 maximum' } };
    shared.server.push({ wire: 'anthropic', status: 400, body: tooLong });
    const { prompt } = await session('anthropic');
    const error = await failure(prompt('hi'));
    expect(error.message).toContain("The conversation no longer fits the model's context");
    expect(error.message).toContain('prompt is too long');
    expect(error.message).toContain('start a new session, or set agent.contextWindow');
    expect(shared.server.requests).toHaveLength(1);
  });

  it("a preset's refused key names the preset's variable", async () => {
    const gateway = await startScriptedOpenAIServer([{ status: 401, errorBody: { error: { message: 'No auth credentials found', code: 401 } } }]);
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'plaited-model-retries-'));
      const cli = startAcpCli({ cwd, args: ['--model', 'openrouter:meta-llama/llama-3.3-70b-instruct', '--base-url', gateway.url], env: { OPENROUTER_API_KEY: 'sk-or-wrong' } });
      bed.track(cli);
      await initialize(cli);
      const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
      const error = await failure(cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }));
      expect(error.message).toContain('HTTP 401');
      expect(error.message).toContain('check the key (OPENROUTER_API_KEY or agent.apiKey)');
      expect(gateway.requests).toHaveLength(1);
    } finally {
      await gateway.close();
    }
  });
});
