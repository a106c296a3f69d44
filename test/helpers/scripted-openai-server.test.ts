import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { EXHAUSTED_TEXT, startScriptedOpenAIServer, type Script, type ScriptedOpenAIServer } from './scripted-openai-server.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(script?: Script, options: { includeUsage?: boolean } = {}) {
  server = await startScriptedOpenAIServer(script);
  return createOpenAICompatible({ baseURL: server.url, name: 'test', includeUsage: options.includeUsage })('scripted-model');
}

const weatherTools = {
  get_weather: tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string; days?: number }>({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city'],
    }),
  }),
  get_time: tool({
    description: 'Local time in a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  }),
};

describe('startScriptedOpenAIServer with the AI SDK openai-compatible provider', () => {
  it('streams text in several deltas and records the request', async () => {
    const model = await modelFor([{ text: 'Hello there, tiny world!' }]);
    const result = streamText({ model, prompt: 'say hello' });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);

    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.join('')).toBe('Hello there, tiny world!');
    expect(await result.finishReason).toBe('stop');
    expect(server!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0]).toMatchObject({
      model: 'scripted-model',
      stream: true,
      messages: [{ role: 'user', content: 'say hello' }],
    });
  });

  it('delivers a tool call with JSON arguments, parsed', async () => {
    const model = await modelFor([{ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo', days: 3 } }] }]);
    const result = streamText({ model, prompt: 'weather?', tools: weatherTools });
    const inputDeltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-input-delta') inputDeltas.push(part.delta);

    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolCallId: 'call_w', toolName: 'get_weather', input: { city: 'Oslo', days: 3 } });
    expect(await result.finishReason).toBe('tool-calls');
    // The arguments really arrived in pieces.
    expect(inputDeltas.length).toBeGreaterThanOrEqual(2);
    expect(inputDeltas.join('')).toBe('{"city":"Oslo","days":3}');
    // The tools went to the server in OpenAI's shape.
    expect(server!.requests[0]!.tools!.map((t) => t.function.name)).toEqual(['get_weather', 'get_time']);
  });

  it('delivers two parallel tool calls with distinct ids', async () => {
    const model = await modelFor([
      {
        text: 'Checking both.',
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Lima' } },
          { name: 'get_time', arguments: '{"city": "Tokyo"}' },
        ],
      },
    ]);
    const result = streamText({ model, prompt: 'both', tools: weatherTools });
    const calls = await result.toolCalls;
    expect(calls.map((call) => [call.toolName, call.input])).toEqual([
      ['get_weather', { city: 'Lima' }],
      ['get_time', { city: 'Tokyo' }],
    ]);
    expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(2);
    expect(await result.text).toBe('Checking both.');
  });

  it('sends reasoning as reasoning parts before the text', async () => {
    const model = await modelFor([{ reasoning: 'The user wants a greeting.', text: 'Hi!' }]);
    const result = streamText({ model, prompt: 'hi' });
    const order: string[] = [];
    const reasoning: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'reasoning-delta') reasoning.push(part.text);
      if (part.type === 'reasoning-delta' || part.type === 'text-delta') order.push(part.type);
    }
    expect(reasoning.join('')).toBe('The user wants a greeting.');
    expect(reasoning.length).toBeGreaterThanOrEqual(2);
    expect(await result.reasoningText).toBe('The user wants a greeting.');
    expect(order.indexOf('text-delta')).toBeGreaterThan(order.lastIndexOf('reasoning-delta'));
  });

  it('reports usage, with and without stream_options.include_usage', async () => {
    const plain = await modelFor([{ text: 'ok', usage: { prompt_tokens: 17, completion_tokens: 4 } }]);
    const first = streamText({ model: plain, prompt: 'x' });
    expect(await first.usage).toMatchObject({ inputTokens: 17, outputTokens: 4, totalTokens: 21 });
    await server!.close();

    const strict = await modelFor([{ text: 'ok', usage: { prompt_tokens: 9, completion_tokens: 2 } }], { includeUsage: true });
    const second = streamText({ model: strict, prompt: 'x' });
    expect(await second.usage).toMatchObject({ inputTokens: 9, outputTokens: 2, totalTokens: 11 });
    expect(server!.requests[0]!.stream_options).toEqual({ include_usage: true });

    // Without scripted usage there is still an estimate.
    server!.push({ text: 'a longer answer than before' });
    const third = streamText({ model: strict, prompt: 'x' });
    const usage = await third.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it('runs a multi-step tool loop: steps in order, the tool result reaches the server, then exhaustion', async () => {
    const model = await modelFor([
      { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'answer' } }] },
      { text: 'It is 42.' },
    ]);
    const lookup = tool({
      description: 'Looks things up',
      inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }),
      execute: async ({ q }) => `${q} = 42`,
    });
    const result = await generateText({ model, prompt: 'what is it?', tools: { lookup }, stopWhen: stepCountIs(3) });
    expect(result.text).toBe('It is 42.');
    expect(server!.requests).toHaveLength(2);
    const toolMessage = server!.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'c1' });
    expect(JSON.stringify(toolMessage!.content)).toContain('answer = 42');

    // Past the end of the script: a plain answer, not a hang.
    const more = await generateText({ model, prompt: 'again' });
    expect(more.text).toBe(EXHAUSTED_TEXT);
  });

  it('asks a script function for each request, after pushed steps', async () => {
    const model = await modelFor((request, index) => ({ text: `reply ${index} to ${request.messages.length} messages` }));
    server!.push({ text: 'pushed first' });
    expect((await generateText({ model, prompt: 'a' })).text).toBe('pushed first');
    expect((await generateText({ model, prompt: 'b' })).text).toBe('reply 1 to 1 messages');
  });

  it('answers non-streaming requests with a chat.completion body', async () => {
    const model = await modelFor([
      { reasoning: 'thinking', text: 'done', toolCalls: [{ name: 'get_time', arguments: { city: 'Rome' } }], finishReason: 'tool_calls' },
    ]);
    const result = await generateText({ model, prompt: 'x', tools: weatherTools });
    expect(server!.requests[0]!.stream).toBeFalsy();
    expect(result.text).toBe('done');
    expect(result.reasoningText).toBe('thinking');
    expect(result.toolCalls.map((call) => call.input)).toEqual([{ city: 'Rome' }]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('answers a scripted error status with the error body', async () => {
    const model = await modelFor([{ status: 503, errorBody: { error: { message: 'overloaded, try later', type: 'server_error' } } }]);
    let failure: unknown;
    try {
      await generateText({ model, prompt: 'x', maxRetries: 0 });
    } catch (error) {
      failure = error;
    }
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ statusCode: 503 });
    expect((failure as Error).message).toContain('overloaded, try later');
  });

  it('lists a model and 404s unknown routes', async () => {
    server = await startScriptedOpenAIServer();
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((model) => model.id)).toEqual(['scripted']);
    expect((await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    const bad = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
  });

  it('close() ends a response that is still streaming', async () => {
    const model = await modelFor([{ text: 'one two three four five six', chunkDelayMs: 60_000 }]);
    const result = streamText({ model, prompt: 'x', onError: () => {} });
    const parts: string[] = [];
    const consumed = (async () => {
      try {
        for await (const part of result.fullStream) parts.push(part.type);
      } catch {
        parts.push('thrown');
      }
    })();
    // The response is open (headers and the role chunk sent) and waits a minute before the text.
    while (server!.requests.length === 0) await new Promise((tick) => setTimeout(tick, 5));
    await server!.close();
    await consumed;
    expect(parts).not.toContain('text-delta');
    expect(parts.includes('error') || parts.includes('thrown')).toBe(true);
  });
});
