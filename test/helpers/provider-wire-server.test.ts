import { afterEach, describe, expect, it } from 'vitest';
import { RECORDED, recordedEvents, startProviderWireServer, wireErrors, type ProviderWireServer } from './provider-wire-server.js';

let server: ProviderWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the provider wire server', () => {
  it('replays a recorded stream as SSE, with a tool call renamed, and records the request', async () => {
    server = await startProviderWireServer([{ wire: 'anthropic', events: [RECORDED.anthropic.toolUse], toolCall: { name: 'read_file', input: { path: 'a' } } }]);
    const response = await post(`${server.baseURL('anthropic')}/messages`, { model: 'claude-x', stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const events = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
    expect(text.startsWith('event: message_start\ndata: ')).toBe(true);
    expect(events[1]).toMatchObject({ content_block: { type: 'tool_use', name: 'read_file', id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA' } });
    const args = events.filter((e) => (e.delta as { type?: string } | undefined)?.type === 'input_json_delta').map((e) => (e.delta as { partial_json: string }).partial_json);
    expect(args.join('')).toBe('{"path":"a"}');
    expect(events.at(-1)).toEqual(recordedEvents(RECORDED.anthropic.toolUse).at(-1));
    expect(server.requests).toEqual([expect.objectContaining({ wire: 'anthropic', path: '/v1/messages', body: { model: 'claude-x', stream: true } })]);
  });

  it('answers errors in the API shape with their headers, and a request for another wire with 500', async () => {
    server = await startProviderWireServer([wireErrors.rateLimited('openai', 2), wireErrors.modelNotFound('google', 'gemini-nope')]);
    const limited = await post(`${server.baseURL('openai')}/responses`, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    const wrong = await post(`${server.baseURL('anthropic')}/messages`, {});
    expect(wrong.status).toBe(500);
  });

  it('cuts a stream after the given number of events', async () => {
    server = await startProviderWireServer([{ wire: 'google', events: [RECORDED.google.text], cutAfter: 1 }]);
    const response = await post(`${server.baseURL('google')}/models/gemini-x:streamGenerateContent?alt=sse`, {});
    const reader = response.body!.getReader();
    let received = '';
    const failure = await (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        received += new TextDecoder().decode(value);
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(received).toContain('There are **3**');
    expect(received).not.toContain('strawberry');
  });
});
