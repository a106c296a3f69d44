import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { requireTestModel } from '../model/test-models.js';
import { RECORDED, recordedEvents, startProviderWireServer, WIRE_KEY_ENV, WIRE_MODELS, type ProviderWire, type ProviderWireServer } from '../helpers/provider-wire-server.js';

/**
 * What a user who brings their own model meets when its endpoint misbehaves: each failure reaches
 * the ACP client as an error naming the cause and the fix, the session goes on, and the key never
 * shows. Through the built CLI against local servers speaking the providers' wire formats.
 */

const bed = acpTestBed({ prefix: 'plaited-provider-failures-' });

let wire: ProviderWireServer;
beforeAll(async () => {
  wire = await startProviderWireServer();
});
afterAll(async () => {
  await wire.close();
});

/** The built CLI on a native provider's wire, checked after the test. */
function startWireCli(provider: ProviderWire, cwd: string): AcpCli {
  return bed.start(cwd, { args: ['--model', `${provider}:${WIRE_MODELS[provider]}`, '--base-url', wire.baseURL(provider)], env: { [WIRE_KEY_ENV[provider]]: 'wire-test-key' } });
}

async function session(cli: AcpCli, cwd: string) {
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const prompt = (text: string) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { sessionId, prompt };
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  return promise.then(
    () => ({ code: 0, message: 'the prompt succeeded' }),
    (error: unknown) => error as { code: number; message: string },
  );
}

/** Every file under `dir`, as text. */
function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');
}

describe('keys never shown', () => {
  it('a server that echoes the refused key and a header: the error names the cause, the values are blanked everywhere', async () => {
    const key = 'sk-echoed-key-0123456789';
    const token = 'gateway-token-abcdef';
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { headers: { 'X-Gateway-Token': token } } }));
    // As some proxies answer: the credentials they were given, quoted back.
    bed.server.push({ status: 401, errorBody: { error: { message: `Invalid key Bearer ${key} (token ${token})` } } }, { text: 'Back again.' });
    const cli = bed.start(cwd, { env: { PLAITED_API_KEY: key } });
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('refused the API key (HTTP 401');
    expect(error.message).toContain('Invalid key Bearer [redacted] (token [redacted])');
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('Back again.');
    await bed.closeNow(cli);
    const everything = `${JSON.stringify(cli.updates)}${error.message}${cli.stderr()}${filesText(join(cwd, '.plaited/state'))}`;
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(token);
  });
});

/**
 * A port on this machine where nothing listens: 2, privileged, so no test's server can take it, as
 * a port bound and let go could be by a server of a test running beside this one (and not on
 * fetch's list of refused ports, as 1 and 9 are: "bad port").
 */
const closedPort = async (): Promise<number> => 2;

/** OpenAI's answer to a wrong key, as its API sends it. */
const INVALID_KEY = { status: 401, errorBody: { error: { message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };

describe('a refused key and an unreachable endpoint are told apart', () => {
  it('ACP: a 401 fails the prompt with data.reason "auth" and names the variable that supplied the key; the log says it too, never the key', async () => {
    const key = 'sk-mistyped-0123456789abcdef';
    const cwd = bed.project();
    const logFile = join(cwd, 'agent.jsonl');
    bed.server.push(INVALID_KEY);
    const cli = bed.start(cwd, { args: ['--log-file', logFile], env: { PLAITED_API_KEY: key } });
    const { prompt } = await session(cli, cwd);
    const error = (await failure(prompt('hi'))) as { code: number; message: string; data?: { code?: string; reason?: string } };
    expect(error.data).toMatchObject({ code: 'model_call_failed', reason: 'auth' });
    expect(error.message).toContain('refused the API key (HTTP 401');
    expect(error.message).toContain('check the key (agent.apiKey or PLAITED_API_KEY): this one came from the PLAITED_API_KEY variable.');
    expect(error.message).not.toContain('is the model server running');
    const logged = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event?: string; reason?: string; msg?: string });
    expect(logged.find((record) => record.event === 'model-error')).toMatchObject({ reason: 'auth', msg: expect.stringContaining('this one came from the PLAITED_API_KEY variable') });
    await bed.closeNow(cli);
    expect(`${error.message}${cli.stderr()}${readFileSync(logFile, 'utf8')}`).not.toContain(key);
  });

  it('-p: a key from agent.apiKey that the provider refuses: reason "auth" in the JSON output and on stderr, naming the config', async () => {
    const key = 'sk-config-key-0123456789abcdef';
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { apiKey: key } }));
    bed.server.push(INVALID_KEY);
    const run = await runCliOnce(['-p', 'hello', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', bed.server.url], { cwd, env: { PLAITED_API_KEY: '' } });
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout) as { error: { code: string; reason: string; message: string } };
    expect(result.error).toMatchObject({ code: 'model_call_failed', reason: 'auth' });
    expect(result.error.message).toContain('this one came from agent.apiKey in the config.');
    expect(run.stderr).toContain('the turn failed (model_call_failed)');
    expect(run.stderr).toContain('[reason: auth]');
    expect(`${run.stdout}${run.stderr}`).not.toContain(key);

    // A server that wants a key when none was set: "no key was sent", not "check the key".
    bed.server.push(INVALID_KEY);
    const keyless = await runCliOnce(['-p', 'hello', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', bed.server.url], { cwd: bed.project(), env: { PLAITED_API_KEY: '' } });
    const unkeyed = JSON.parse(keyless.stdout) as { error: { reason: string; message: string } };
    expect(unkeyed.error.reason).toBe('auth');
    expect(unkeyed.error.message).toContain('refused the API key (HTTP 401');
    expect(unkeyed.error.message).toContain('no key was sent: set one (agent.apiKey or PLAITED_API_KEY).');
  });

  it('-p and ACP: a closed port is "unreachable": connection refused, is the server running, not a key problem', async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}/v1`;
    const run = await runCliOnce(['-p', 'hello', '--output-format', 'json', '--model', 'openai-compatible:local', '--base-url', base], { cwd: bed.project() });
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout) as { error: { code: string; reason: string; message: string } };
    expect(result.error).toMatchObject({ code: 'model_call_failed', reason: 'unreachable' });
    expect(result.error.message).toContain(`Cannot reach the model endpoint ${base}/chat/completions`);
    expect(result.error.message).toContain('connection refused, nothing listens there: is the model server running?');
    expect(result.error.message).not.toMatch(/API key/);
    expect(run.stderr).toContain('[reason: unreachable]');

    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:local', '--base-url', base] }));
    const { prompt } = await session(cli, cwd);
    const error = (await failure(prompt('hi'))) as { message: string; data?: { code?: string; reason?: string } };
    expect(error.data).toMatchObject({ code: 'model_call_failed', reason: 'unreachable' });
    expect(error.message).toContain('connection refused');
  });
});

describe('errors sent inside a reply that had begun', () => {
  it("Anthropic's overloaded error event: what arrived stays shown, the error says overloaded and to send again later", async () => {
    const text = recordedEvents(RECORDED.anthropic.text);
    const firstDelta = text.findIndex((event) => event.type === 'content_block_delta');
    wire.push(
      { wire: 'anthropic', events: [...text.slice(0, firstDelta + 1), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }] },
      { wire: 'anthropic', events: [RECORDED.anthropic.text] },
    );
    const cwd = bed.project();
    const cli = startWireCli('anthropic', cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).not.toContain('[object Object]');
    expect(error.message).toContain('overloaded_error: Overloaded');
    expect(error.message).toContain('send the prompt again later');
    expect(agentText(cli, sessionId)).toBe('Hello');
    expect((await prompt('again')).stopReason).toBe('end_turn');
  });

  it("an OpenAI-compatible gateway's error chunk (OpenRouter's upstream failure) names it", async () => {
    const upstream = JSON.stringify({ error: { message: 'Provider returned error', code: 502, metadata: { provider_name: 'Upstream' } } });
    bed.server.push({ text: 'Partly', rawChunks: [upstream] }, { text: 'Whole.' });
    const cwd = bed.project();
    const cli = bed.start(cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('sent an error in the middle of its reply (502: Provider returned error)');
    expect(error.message).toContain('send the prompt again later');
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('PartlyWhole.');
  });
});

describe("keys where each provider's docs put them", () => {
  it("Gemini's key in GEMINI_API_KEY, as Google's docs set it: sessions open and the calls carry it", async () => {
    const env = { GEMINI_API_KEY: 'gemini-docs-key-0123', GOOGLE_GENERATIVE_AI_API_KEY: '', GOOGLE_API_KEY: '', PLAITED_API_KEY: '' };
    const cwd = bed.project();
    // The provider's own endpoint (never contacted): the key check before any session.
    const remote = bed.track(startAcpCli({ cwd, args: ['--model', 'google:gemini-2.5-flash'], env }));
    await initialize(remote);
    expect((await remote.agent.request('session/new', { cwd, mcpServers: [] })).sessionId).toBeTruthy();

    wire.push({ wire: 'google', events: [RECORDED.google.text] });
    const local = bed.start(cwd, { args: ['--model', `google:${WIRE_MODELS.google}`, '--base-url', wire.baseURL('google')], env });
    const { prompt } = await session(local, cwd);
    expect((await prompt('hi')).stopReason).toBe('end_turn');
    expect(wire.requests.at(-1)!.headers['x-goog-api-key']).toBe('gemini-docs-key-0123');
  });
});

describe('base URLs as providers document them', () => {
  it('an Azure OpenAI-style base URL with ?api-version: each call keeps the path and the query', async () => {
    bed.server.push({ text: 'From the deployment.' });
    const cwd = bed.project();
    const cli = bed.track(
      startAcpCli({
        cwd,
        args: ['--model', 'openai-compatible:gpt-4o', '--base-url', `${bed.server.url}/?api-version=2024-10-21`],
        env: { PLAITED_API_KEY: 'azure-style-key-0123' },
      }),
    );
    const { sessionId, prompt } = await session(cli, cwd);
    expect((await prompt('hi')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('From the deployment.');
    expect(bed.server.requestUrls).toEqual(['/v1/chat/completions?api-version=2024-10-21']);
  });

  it("a key in the base URL's query goes on every call, retries included, and into no notice or error", async () => {
    const key = 'query-key-0123456789';
    bed.server.push({ status: 429, errorBody: { error: { message: `slow down, ${key}` } } }, { status: 429, errorBody: { error: { message: `still slow, ${key}` } } });
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { retries: { attempts: 2 } } }));
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:m', '--base-url', `${bed.server.url}?key=${key}`], env: { PLAITED_API_KEY: '' } }));
    await initialize(cli, { session: { notices: {} } } as never);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const error = await failure(cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }));
    expect(bed.server.requestUrls).toEqual([`/v1/chat/completions?key=${key}`, `/v1/chat/completions?key=${key}`]);
    expect(error.message).toContain('Rate limited');
    const notices = cli.updates.filter((n) => (n.update.sessionUpdate as string) === 'notice');
    expect(notices.length).toBeGreaterThan(0);
    expect(`${JSON.stringify(cli.updates)}${error.message}${cli.stderr()}`).not.toContain(key);
  });
});

describe('an endpoint that takes the request and goes quiet', () => {
  function quietProject(): string {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { modelTimeouts: { replyMs: 1000, streamIdleMs: 1000 } } }));
    return cwd;
  }

  it('no reply within agent.modelTimeouts.replyMs: the turn fails naming the setting, unretried, and the session goes on', async () => {
    let release!: () => void;
    const never = new Promise<void>((done) => (release = done));
    bed.server.push({ text: 'too late', until: never }, { text: 'In time.' });
    const cwd = quietProject();
    const cli = bed.start(cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    release();
    expect(error.message).toContain('sent no reply for 1 s (agent.modelTimeouts.replyMs)');
    expect(error.message).toContain('give it longer with agent.modelTimeouts.replyMs');
    expect(error.message).not.toContain('is the model server running');
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('In time.');
    expect(bed.server.requests).toHaveLength(2);
  });

  it('a stream that stalls past agent.modelTimeouts.streamIdleMs: what arrived stays shown, the error names the setting', async () => {
    let release!: () => void;
    const never = new Promise<void>((done) => (release = done));
    bed.server.push({ text: 'Half of it, then silence', holdAfter: { chunks: 2, until: never } }, { text: ' Whole.' });
    const cwd = quietProject();
    const cli = bed.start(cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    release();
    expect(error.message).toContain('sent nothing more for 1 s (agent.modelTimeouts.streamIdleMs)');
    expect(agentText(cli, sessionId).length).toBeGreaterThan(0);
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toMatch(/ Whole\.$/);
  });
});

describe('something else answering in the API’s place', () => {
  it('a login page (HTTP 200, text/html) where the stream belongs: the error says a web page came, from what, and what to check', async () => {
    const page = '<html><head><title>Sign in to Example Proxy</title></head><body>Log in to continue</body></html>';
    wire.push({ wire: 'openai', status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } }, { wire: 'openai', events: [RECORDED.openai.text] });
    const cwd = bed.project();
    const cli = startWireCli('openai', cwd);
    const { prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('answered a web page (HTTP 200, text/html: "Sign in to Example Proxy") instead of the API');
    expect(error.message).toContain('Check --base-url / agent.baseURL and any HTTPS_PROXY');
    expect((await prompt('again')).stopReason).toBe('end_turn');

    wire.push({ wire: 'openai', status: 407, body: '<html><title>Proxy Authentication Required</title></html>', headers: { 'content-type': 'text/html' } });
    const proxy = await failure(prompt('once more'));
    expect(proxy.message).toContain('(no reason given: a proxy that wants authentication (HTTP 407) ends a call this way)');
    expect(proxy.message).toContain('check the network (and any proxy)');
  });
});

describe('a spent quota', () => {
  it("OpenAI's 429 insufficient_quota is answered at once and says billing, not 'wait a moment'", async () => {
    const body = {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    };
    wire.push({ wire: 'openai', status: 429, body });
    const cwd = bed.project();
    const cli = startWireCli('openai', cwd);
    const { prompt } = await session(cli, cwd);
    const before = wire.requests.length;
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('Out of quota');
    expect(error.message).toContain('check the plan and billing with the provider');
    expect(error.message).not.toContain('wait a moment');
    expect(wire.requests.length - before, 'one call, not retried').toBe(1);
  });
});

describe('connections that fail before any reply', () => {
  it("a self-signed certificate names the certificate and NODE_EXTRA_CA_CERTS, not 'is the server running?'", async () => {
    const tls = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/tls');
    const server = createHttpsServer({ key: readFileSync(join(tls, 'self-signed.key.pem')), cert: readFileSync(join(tls, 'self-signed.cert.pem')) }, (_, response) => {
      response.writeHead(500).end();
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const cwd = bed.project();
      const { port } = server.address() as AddressInfo;
      const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:m', '--base-url', `https://127.0.0.1:${port}/v1`] }));
      const { prompt } = await session(cli, cwd);
      const error = await failure(prompt('hi'));
      expect(error.message).toContain('self-signed certificate');
      expect(error.message).toContain('NODE_EXTRA_CA_CERTS');
      expect(error.message).not.toContain('is the model server running');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a host name that does not resolve says so', async () => {
    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:m', '--base-url', 'http://model-host.invalid/v1'], env: { PLAITED_API_KEY: 'dns-test-key-0123' } }));
    const { prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('the host name does not resolve');
    expect(error.message).not.toContain('is the model server running');
  });
});

describe('tool calls as a native provider sends them', () => {
  it('Anthropic: parallel calls, one to an unknown tool and one with broken JSON: every call gets its result in one message, each shown by what it is', async () => {
    const block = (index: number, id: string, name: string, json: string) => [
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } },
      { type: 'content_block_stop', index },
    ];
    const start = recordedEvents(RECORDED.anthropic.toolUse)[0]!;
    wire.push(
      {
        wire: 'anthropic',
        events: [
          start,
          ...block(0, 'toolu_a', 'read_file', '{"path":"notes.txt"}'),
          ...block(1, 'toolu_b', 'read_file', '{"path":"other.txt"}'),
          ...block(2, 'toolu_c', 'no_such_tool', '{}'),
          ...block(3, 'toolu_d', 'read_file', '{"path": '),
          { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } },
          { type: 'message_stop' },
        ],
      },
      { wire: 'anthropic', events: [RECORDED.anthropic.text] },
    );
    const cwd = bed.project();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\n');
    writeFileSync(join(cwd, 'other.txt'), 'beta\n');
    const cli = startWireCli('anthropic', cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    const before = wire.requests.length;
    expect((await prompt('read both')).stopReason).toBe('end_turn');
    const messages = wire.requests[before + 1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const results = messages.at(-1)!.content;
    expect(results.map((part) => [part.tool_use_id, part.is_error ?? false])).toEqual([
      ['toolu_a', false],
      ['toolu_b', false],
      ['toolu_c', true],
      ['toolu_d', true],
    ]);
    expect(String(results[2]!.content)).toContain('Unknown tool "no_such_tool"');
    expect(String(results[3]!.content)).toContain('could not parse the arguments as JSON');
    const titles = cli.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call')
      .map((n) => (n.update as { title: string }).title);
    expect(titles).toEqual(['Read notes.txt', 'Read other.txt', 'no_such_tool', 'read_file (invalid arguments)']);
  });
});

describe('a reply in more than one piece', () => {
  it("OpenAI's preamble and final answer (two messages of one response) read as two paragraphs, not glued", async () => {
    wire.push({ wire: 'openai', events: [RECORDED.openai.text] }, { wire: 'openai', events: [RECORDED.openai.text] });
    const cwd = bed.project();
    const cli = startWireCli('openai', cwd);
    const { sessionId, prompt } = await session(cli, cwd);
    await prompt('capital of France?');
    expect(agentText(cli, sessionId)).toBe("I'm going to search for that\n\nThe capital of France is Paris.");
    const before = wire.requests.length;
    await prompt('thanks');
    // Each message goes back as the item it was, with its phase (commentary, then the answer): apart, not glued.
    const input = wire.requests[before]!.body.input as Array<Record<string, unknown>>;
    expect(input.filter((item) => item.role === 'assistant')).toEqual([
      { role: 'assistant', content: [{ type: 'output_text', text: "I'm going to search for that" }], phase: 'commentary' },
      { role: 'assistant', content: [{ type: 'output_text', text: '\n\nThe capital of France is Paris.' }], phase: 'final_answer' },
    ]);
  });
});

describe('a safety stop', () => {
  it("-p: a refusal (Gemini's SAFETY finish) exits 1 saying the model refused and what to do", async () => {
    wire.push({
      wire: 'google',
      events: [
        {
          candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }],
          usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
          modelVersion: WIRE_MODELS.google,
        },
      ],
    });
    const run = await runCliOnce(['-p', 'something unsafe', '--model', `google:${WIRE_MODELS.google}`, '--base-url', wire.baseURL('google')], {
      cwd: bed.project(),
      env: { GOOGLE_GENERATIVE_AI_API_KEY: 'wire-test-key' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('stop reason refusal');
    expect(run.stderr).toContain("the model refused to answer (its provider's content filter or safety stop)");
  });
});

describe('a model server behind basic auth', () => {
  it('a user and password in the base URL go as basic auth, and the password shows nowhere', async () => {
    const password = 'basic-pass-0123456789';
    bed.server.push({ status: 500, errorBody: { error: { message: `upstream failed for ${password}` } } }, { text: 'Behind the proxy.' });
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { retries: { attempts: 1 } } }));
    const baseURL = bed.server.url.replace('http://', `http://ollama-user:${password}@`);
    const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:m', '--base-url', baseURL], env: { PLAITED_API_KEY: '' } }));
    const { sessionId, prompt } = await session(cli, cwd);
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('HTTP 500');
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('Behind the proxy.');
    expect(bed.server.requestHeaders.map((headers) => headers.authorization)).toEqual([
      `Basic ${Buffer.from(`ollama-user:${password}`).toString('base64')}`,
      `Basic ${Buffer.from(`ollama-user:${password}`).toString('base64')}`,
    ]);
    expect(`${JSON.stringify(cli.updates)}${error.message}${cli.stderr()}`).not.toContain(password);
  });
});

describe('models list on such base URLs', () => {
  it('a user and password in the base URL: the models are listed through basic auth, and the password is not printed', async () => {
    const password = 'list-pass-0123456789';
    const baseURL = bed.server.url.replace('http://', `http://ollama-user:${password}@`);
    const run = await runCliOnce(['models', 'list', '--model', 'openai-compatible:scripted', '--base-url', baseURL], { cwd: bed.project(), env: { PLAITED_API_KEY: '' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('scripted');
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
  });
});

describe('doctor on such base URLs', () => {
  it('a user and password in the base URL: the model check passes through basic auth, and the password is not printed', async () => {
    const password = 'doctor-pass-0123456789';
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    const baseURL = `${bed.server.url.replace('http://', `http://ollama-user:${password}@`)}?api-version=2024-10-21`;
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({ agent: { model: 'openai-compatible:scripted', baseURL }, embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }),
    );
    const run = await runCliOnce(['doctor'], { cwd, env: { PLAITED_API_KEY: '' } });
    const modelLine = run.stdout.split('\n').find((line) => line.slice(2).startsWith('model')) ?? run.stdout;
    expect(modelLine).toMatch(/^✓ /);
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
  });
});
