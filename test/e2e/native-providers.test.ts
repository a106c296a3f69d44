import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import {
  RECORDED,
  recordedEvents,
  startProviderWireServer,
  WIRE_KEY_ENV,
  WIRE_MODELS,
  wireErrors,
  type ProviderWire,
  type ProviderWireServer,
  type WireReply,
} from '../helpers/provider-wire-server.js';
import { closeChecked } from '../helpers/close-checked.js';

/**
 * The native providers through the built CLI, against a local server replaying streams recorded
 * from the real APIs (test/fixtures/provider-streams): Anthropic's Messages SSE, OpenAI's
 * Responses SSE, Gemini's streamGenerateContent. Only the model is scripted.
 */

const KEYS = { anthropic: 'sk-ant-wire-test', openai: 'sk-openai-wire-test', google: 'google-wire-test-key' } as const;
const KEY_ENV = WIRE_KEY_ENV;
const MODELS = WIRE_MODELS;

/**
 * One model server for the file, and one CLI per configuration the tests share (a start is ~1 s of
 * CPU, a session on a running CLI almost nothing): each test opens a session in its own project
 * folder. A test that needs its own flags, model or environment starts its own CLI. After each
 * test every scripted reply must have been asked for, so none is left for the next test.
 */
let wire: ProviderWireServer;
let pushed = 0;
const own: AcpCli[] = [];
/** Every permission request any CLI asked, allowed once; a test reads its own session's. */
const asked: acp.RequestPermissionRequest[] = [];

beforeAll(async () => {
  wire = await startProviderWireServer();
});
afterAll(async () => {
  await wire.close();
});
beforeEach(() => {
  wire.requests.length = 0;
  pushed = 0;
});
afterEach(async () => {
  for (const cli of own.splice(0)) {
    await closeChecked(cli);
  }
  expect(wire.requests, 'every scripted reply was asked for, and no more').toHaveLength(pushed);
});

const server = {
  get requests() {
    return wire.requests;
  },
  baseURL: (provider: ProviderWire) => wire.baseURL(provider),
  push(...replies: WireReply[]) {
    pushed += replies.length;
    wire.push(...replies);
  },
};

function project(config?: Record<string, unknown>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-native-providers-'));
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
  if (config) {
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(config));
  }
  return cwd;
}

function startCli(provider: ProviderWire, cwd: string, model: string = MODELS[provider]): AcpCli {
  return startAcpCli({
    cwd,
    args: ['--model', `${provider}:${model}`, '--base-url', server.baseURL(provider)],
    env: { [KEY_ENV[provider]]: KEYS[provider] },
    onPermission: (request) => {
      asked.push(request);
      return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
    },
  });
}

/** One CLI for the tests of a describe (its config in the CLI's folder), checked after each test. */
function sharedCli(provider: ProviderWire, config?: () => Record<string, unknown>) {
  let cli: AcpCli | undefined;
  beforeAll(async () => {
    cli = startCli(provider, project(config?.()));
    await initialize(cli);
  });
  afterEach(() => {
    expect(cli!.validator.errors, cli!.validator.errors.join('\n')).toEqual([]);
  });
  afterAll(async () => {
    await cli?.close();
  });
  return () => cli!;
}

/** A session in `cwd` on `cli`: its prompts, and the permission requests it asked. */
async function session(cli: AcpCli, cwd: string) {
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const prompt = (text: string) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { cli, sessionId, prompt, asked: () => asked.filter((request) => request.sessionId === sessionId) };
}

/** A CLI of the test's own (its own model), closed and checked after the test. */
async function ownSession(provider: ProviderWire, cwd: string, model?: string) {
  const cli = startCli(provider, cwd, model);
  own.push(cli);
  await initialize(cli);
  return session(cli, cwd);
}

function thoughts(cli: AcpCli, sessionId: string): string {
  return cli.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_thought_chunk')
    .map((n) => (n.update as { content: { text?: string } }).content.text ?? '')
    .join('');
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  return promise.then(
    () => ({ code: 0, message: 'the prompt succeeded' }),
    (error: unknown) => error as { code: number; message: string },
  );
}

const EDIT = { name: 'edit_file', input: { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' } };

describe('anthropic: (Messages API)', () => {
  const plain = sharedCli('anthropic');
  // Thinking on by default, and a model a session may pick with its own reasoning efforts.
  const thinker = sharedCli('anthropic', () => ({
    agent: {
      reasoning: 'low',
      models: [{ name: 'deep', model: 'anthropic:claude-opus-4-1', baseURL: server.baseURL('anthropic'), reasoningEfforts: ['low', 'high'] }],
    },
  }));

  it('runs a tool the user allows, sends its result back, and caches the system prompt and the tools', async () => {
    const cwd = project();
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.toolUse], toolCall: EDIT }, { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    const { cli, sessionId, prompt, asked } = await session(plain(), cwd);
    const response = await prompt('change beta to gamma');
    expect(response.stopReason).toBe('end_turn');
    expect(asked()).toHaveLength(1);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    expect(agentText(cli, sessionId)).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");

    const [first, second] = server.requests;
    expect(first!.headers['x-api-key']).toBe(KEYS.anthropic);
    expect(first!.body.model).toBe(MODELS.anthropic);
    const system = first!.body.system as Array<{ cache_control?: unknown }>;
    expect(system.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    const tools = first!.body.tools as Array<{ name: string; cache_control?: unknown }>;
    expect(tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    const messages = second!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.at(-2)!.content).toContainEqual(expect.objectContaining({ type: 'tool_use', id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'edit_file' }));
    expect(messages.at(-1)!.content).toContainEqual(expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA' }));
  });

  it('caches the conversation too: each request marks its last message, so the next step reads the history from the cache', async () => {
    const cwd = project();
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.toolUse], toolCall: EDIT }, { wire: 'anthropic', events: [RECORDED.anthropic.text] }, { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    const { prompt } = await session(plain(), cwd);
    await prompt('change beta to gamma');
    await prompt('thanks');
    const marked = (body: Record<string, unknown>) =>
      (body.messages as Array<{ content: Array<{ cache_control?: unknown }> }>).flatMap((message, m) =>
        message.content.flatMap((part, p) => (part.cache_control ? [[m, p, message.content.length]] : [])),
      );
    // Requests of 1, 3 and 5 messages (user; user, tool use, result; … reply, user). Marked: the last
    // block of the last message and of the message before the last reply (where the request before
    // put its own); with the system prompt's and the tools', Anthropic's four.
    expect(server.requests.map(({ body }) => (body.messages as unknown[]).length)).toEqual([1, 3, 5]);
    expect(server.requests.map(({ body }) => marked(body))).toEqual([[[0, 0, 1]], [[0, 0, 1], [2, 0, 1]], [[2, 0, 1], [4, 0, 1]]]);
    for (const { body } of server.requests) {
      expect((body.messages as Array<{ content: Array<{ cache_control?: unknown }> }>).at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    }
  });

  it('streams extended thinking as thought chunks and sends the thinking back with its signature', async () => {
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.thinking] }, { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    const { cli, sessionId, prompt } = await session(thinker(), project());
    await prompt('925 divided by 5?');
    expect(thoughts(cli, sessionId)).toBe('The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185');
    expect(agentText(cli, sessionId)).toBe('925 ÷ 5 = 185');
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    // The recorded stream's prompt cache read and wrote nothing: no _meta (acp-session-info.test.ts covers a cache that did).
    const usage = cli.updates.find((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'usage_update');
    expect(usage?.update).toMatchObject({ used: 69 + 53 });
    expect(usage?.update).not.toHaveProperty('_meta');

    await prompt('thanks');
    const messages = server.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const thinking = messages.find((message) => message.role === 'assistant')!.content[0];
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185' });
    expect(String(thinking!.signature)).toMatch(/^EvQBCkYICxgCKkAxhD4N/);
  });

  it('cancels a turn mid-stream: the client hears cancelled and the agent takes the next prompt', async () => {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.thinking], holdAfterFirst: held }, { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    const { cli, sessionId, prompt } = await session(plain(), project());
    const turn = prompt('think long');
    await waitFor(() => server.requests.length === 1, 20_000, 'the model request');
    await cli.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    release();
    expect((await prompt('again')).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toContain('Is there anything I can help you with?');
  });

  it('a stream cut mid-way fails the turn saying so, after what arrived was shown', async () => {
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.thinking], cutAfter: 6 });
    const { cli, sessionId, prompt } = await session(plain(), project());
    const error = await failure(prompt('hi'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('stopped mid-reply');
    expect(error.message).toContain('send the prompt again');
    expect(thoughts(cli, sessionId)).toBe('The previous result was');
    expect(server.requests).toHaveLength(1);
  });

  it('thinks, then calls a tool: the continuation sends the signed thinking before the tool use', async () => {
    const cwd = project();
    // One recorded turn's thinking block, then another recorded turn's tool use moved to block 1.
    const thinking = recordedEvents(RECORDED.anthropic.thinking);
    const thinkingBlock = thinking.slice(0, thinking.findIndex((e) => e.type === 'content_block_stop') + 1);
    const toolUse = recordedEvents(RECORDED.anthropic.toolUse).slice(1).map((e) => ('index' in e ? { ...e, index: 1 } : e));
    server.push(
      { wire: 'anthropic', events: [...thinkingBlock, ...toolUse], toolCall: EDIT },
      { wire: 'anthropic', events: [RECORDED.anthropic.text] },
    );
    const { cli, sessionId, prompt } = await session(thinker(), cwd);
    expect((await prompt('change beta')).stopReason).toBe('end_turn');
    expect(thoughts(cli, sessionId)).toContain('925 ÷ 5 = 185');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    const messages = server.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const assistant = messages.find((message) => message.role === 'assistant')!;
    expect(assistant.content.map((part) => part.type)).toEqual(['thinking', 'tool_use']);
    expect(String(assistant.content[0]!.signature)).toMatch(/^EvQBCkYICxgCKkAxhD4N/);
  });

  it('sends each thinking block of a reply back on its own, a redacted one as it came, in their order', async () => {
    const cwd = project();
    const thinking = recordedEvents(RECORDED.anthropic.thinking);
    const thinkingBlock = thinking.slice(1, thinking.findIndex((e) => e.type === 'content_block_stop') + 1);
    // A redacted block in the wire shape Anthropic documents (no recording of one is public), then the recorded block again as block 2.
    const redacted = [
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' } },
      { type: 'content_block_stop', index: 1 },
    ];
    const again = thinkingBlock.map((e) => ('index' in e ? { ...e, index: 2 } : e));
    const toolUse = recordedEvents(RECORDED.anthropic.toolUse).slice(1).map((e) => ('index' in e ? { ...e, index: 3 } : e));
    server.push(
      { wire: 'anthropic', events: [thinking[0]!, ...thinkingBlock, ...redacted, ...again, ...toolUse], toolCall: EDIT },
      { wire: 'anthropic', events: [RECORDED.anthropic.text] },
    );
    const { prompt } = await session(thinker(), cwd);
    expect((await prompt('change beta')).stopReason).toBe('end_turn');
    const messages = server.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const assistant = messages.find((message) => message.role === 'assistant')!;
    expect(assistant.content.map((part) => part.type)).toEqual(['thinking', 'redacted_thinking', 'thinking', 'tool_use']);
    const recordedThinking = 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185';
    expect(assistant.content[0]).toMatchObject({ thinking: recordedThinking, signature: expect.stringMatching(/^EvQBCkYICxgCKkAxhD4N/) });
    expect(assistant.content[1]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' });
    expect(assistant.content[2]).toMatchObject({ thinking: recordedThinking, signature: assistant.content[0]!.signature });
  });

  it('a model picked per session with a reasoning effort thinks at that level', async () => {
    server.push({ wire: 'anthropic', events: [RECORDED.anthropic.thinking] });
    const { cli, sessionId, prompt } = await session(thinker(), project());
    await cli.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'deep' });
    await cli.agent.request('session/set_config_option', { sessionId, configId: 'reasoning_effort', value: 'high' });
    await prompt('think hard');
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-opus-4-1', thinking: { type: 'enabled', budget_tokens: 24576 } });
    expect(thoughts(cli, sessionId)).toContain('925 ÷ 5 = 185');
  });

  it('reports a refused key with its cause and the variable to fix', async () => {
    server.push(wireErrors.unauthorized('anthropic'));
    const { prompt } = await session(plain(), project());
    const error = await failure(prompt('hi'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('invalid x-api-key');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });
});

describe('openai: (Responses API)', () => {
  const shared = sharedCli('openai');

  it('runs a tool the user allows and sends its output back by call id', async () => {
    const cwd = project();
    server.push({ wire: 'openai', events: [RECORDED.openai.toolCall], toolCall: EDIT }, { wire: 'openai', events: [RECORDED.openai.text] });
    const { cli, sessionId, prompt, asked } = await session(shared(), cwd);
    const response = await prompt('change beta to gamma');
    expect(response.stopReason).toBe('end_turn');
    expect(asked()).toHaveLength(1);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    expect(agentText(cli, sessionId)).toContain('The capital of France is Paris.');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    expect(input).toContainEqual(expect.objectContaining({ type: 'function_call_output', call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue' }));
  });

  it('sends each reasoning item back before the call that followed it', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'other.txt'), 'delta\n');
    const call = recordedEvents(RECORDED.openai.toolCall);
    const reasoning = recordedEvents(RECORDED.openai.reasoning);
    const rsA = String((reasoning[0]!.item as Record<string, unknown>).id);
    // Two reasoning items, each followed by its call: the recorded ones, the second pair with new ids.
    const renamed = (events: Array<Record<string, unknown>>, from: string[], to: string[], outputIndex: number) =>
      events.map((event) => {
        let text = JSON.stringify(event);
        from.forEach((id, i) => (text = text.split(id).join(to[i]!)));
        return { ...(JSON.parse(text) as Record<string, unknown>), output_index: outputIndex };
      });
    const callItems = call.slice(2, -1);
    const fc = String((callItems[0]!.item as Record<string, unknown>).id);
    const callId = String((callItems[0]!.item as Record<string, unknown>).call_id);
    server.push(
      {
        wire: 'openai',
        events: [
          ...call.slice(0, 2),
          ...renamed(reasoning, [], [], 0),
          ...renamed(callItems, [], [], 1),
          ...renamed(reasoning, [rsA], [`${rsA}b`], 2),
          ...renamed(callItems, [fc, callId], [`${fc}b`, `${callId}b`], 3),
          call.at(-1)!,
        ],
        toolCall: { name: 'read_file', input: { path: 'other.txt' } },
      },
      { wire: 'openai', events: [RECORDED.openai.text] },
    );
    const { prompt } = await session(shared(), cwd);
    expect((await prompt('read it twice')).stopReason).toBe('end_turn');
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    const replayed = input.filter((item) => item.type !== 'message' && item.role === undefined && item.type !== 'function_call_output');
    expect(replayed.map((item) => item.call_id ?? item.id)).toEqual([rsA, callId, `${rsA}b`, `${callId}b`]);
  });

  it('a reply that reasoned, then answered, goes back as its items: the next prompt is not refused for a reasoning item without its message', async () => {
    const text = recordedEvents(RECORDED.openai.text);
    const rs = String((recordedEvents(RECORDED.openai.reasoning)[0]!.item as Record<string, unknown>).id);
    server.push({ wire: 'openai', events: [...text.slice(0, 2), RECORDED.openai.reasoning, ...text.slice(2)] }, { wire: 'openai', events: [RECORDED.openai.text] });
    const { cli, sessionId, prompt } = await session(shared(), project());
    await prompt('compute it');
    expect(agentText(cli, sessionId)).toBe("I'm going to search for that\n\nThe capital of France is Paris.");
    await prompt('and then?');
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    // The recorded reply's items by reference (the API stored them): the reasoning, then each message after it.
    const first = input.findIndex((item) => item.role === 'user');
    expect(input.slice(first + 1, first + 5)).toEqual([
      { type: 'item_reference', id: rs },
      { type: 'item_reference', id: 'msg_phase_commentary' },
      { type: 'item_reference', id: 'msg_phase_final' },
      { role: 'user', content: [{ type: 'input_text', text: 'and then?' }] },
    ]);
  });

  it('streams reasoning summaries as thought chunks', async () => {
    const text = recordedEvents(RECORDED.openai.text);
    server.push({ wire: 'openai', events: [...text.slice(0, 2), RECORDED.openai.reasoning, ...text.slice(2)] });
    const { cli, sessionId, prompt } = await session(shared(), project());
    await prompt('compute it');
    expect(thoughts(cli, sessionId)).toBe(
      "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
    );
    expect(server.requests[0]!.body.reasoning).toMatchObject({ summary: 'auto' });
  });

  it('reports a model that does not exist as model not found, naming it', async () => {
    server.push(wireErrors.modelNotFound('openai', 'gpt-nope'));
    const { prompt } = await ownSession('openai', project(), 'gpt-nope');
    const error = await failure(prompt('hi'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('Model not found');
    expect(error.message).toContain('HTTP 404');
    expect(error.message).toContain('gpt-nope');
  });
});

describe('google: (Gemini API)', () => {
  it('runs a tool the user allows and sends the call back with its thought signature', async () => {
    const cwd = project({ agent: { reasoning: 'medium' } });
    server.push({ wire: 'google', events: [RECORDED.google.toolCall], toolCall: EDIT }, { wire: 'google', events: [RECORDED.google.text] });
    const { cli, sessionId, prompt, asked } = await ownSession('google', cwd);
    const response = await prompt('change beta to gamma');
    expect(response.stopReason).toBe('end_turn');
    expect(asked()).toHaveLength(1);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    expect(agentText(cli, sessionId)).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    expect(server.requests[0]!.path).toBe(`/v1beta/models/${MODELS.google}:streamGenerateContent?alt=sse`);
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe(KEYS.google);
    expect((server.requests[0]!.body.generationConfig as Record<string, unknown>).thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 8192 });
    const contents = JSON.stringify(server.requests[1]!.body.contents);
    expect(contents).toMatch(/"functionResponse":\{"id":"[^"]+","name":"edit_file"/);
    expect(contents).toContain('"thoughtSignature":"EqUCCqICAb4+9vsh8Pd5');
  });

  it('reports a model that does not exist as model not found', async () => {
    server.push(wireErrors.modelNotFound('google', 'gemini-nope'));
    const { prompt } = await ownSession('google', project(), 'gemini-nope');
    const error = await failure(prompt('hi'));
    expect(error.message).toContain('Model not found');
    expect(error.message).toContain('models/gemini-nope is not found');
  });
});

describe('keys', () => {
  it("the ACP auth method names the configured provider's variable, and a key there opens sessions", async () => {
    const cwd = project();
    // No --base-url: the provider's own endpoint, never contacted here.
    const args = ['--model', 'anthropic:claude-sonnet-4-5'];
    const keyless = startAcpCli({ cwd, args, env: { ANTHROPIC_API_KEY: '', PLAITED_API_KEY: '' } });
    own.push(keyless);
    const init = await initialize(keyless);
    expect(init.authMethods).toEqual([expect.objectContaining({ id: 'plaited-api-key', _meta: { envVar: 'ANTHROPIC_API_KEY' } })]);
    await expect(keyless.agent.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('set ANTHROPIC_API_KEY'),
    });

    const keyed = startAcpCli({ cwd, args, env: { ANTHROPIC_API_KEY: 'sk-ant-test', PLAITED_API_KEY: '' } });
    own.push(keyed);
    await initialize(keyed);
    expect(await keyed.agent.request('authenticate', { methodId: 'plaited-api-key' })).toEqual({});
    expect((await keyed.agent.request('session/new', { cwd, mcpServers: [] })).sessionId).toBeTruthy();
  });
});

describe('presets over the OpenAI-compatible API', () => {
  it("openrouter: sends the model name as given and the key from OPENROUTER_API_KEY", async () => {
    const gateway = await startScriptedOpenAIServer([{ text: 'Hello through the gateway.' }]);
    try {
      const cwd = project();
      const cli = startAcpCli({
        cwd,
        args: ['--model', 'openrouter:meta-llama/llama-3.3-70b-instruct', '--base-url', gateway.url],
        env: { OPENROUTER_API_KEY: 'sk-or-wire-test', PLAITED_API_KEY: '' },
      });
      own.push(cli);
      await initialize(cli);
      const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
      expect(agentText(cli, sessionId)).toBe('Hello through the gateway.');
      expect(gateway.requests[0]!.model).toBe('meta-llama/llama-3.3-70b-instruct');
      expect(gateway.requestHeaders[0]!.authorization).toBe('Bearer sk-or-wire-test');
    } finally {
      await gateway.close();
    }
  });
});
