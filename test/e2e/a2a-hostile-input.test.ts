import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { TOKEN, a2aProject, startA2aCli, type A2aCli } from '../adapters/a2a/a2a-cli.js';

let model: ScriptedOpenAIServer;
let cli: A2aCli;

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
  cli = await startA2aCli({ cwd: a2aProject(), args: ['--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

type RpcReply = { id: unknown; result?: { kind?: string; task?: unknown }; error?: { code: number; message: string } };
type RestReply = { error?: { code: number; status: string; message: string } };

const headers = (version?: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...(version ? { 'a2a-version': version } : {}) });
async function rpc(body: string, version?: string): Promise<RpcReply> {
  return (await (await fetch(cli.rpcUrl, { method: 'POST', headers: headers(version), body })).json()) as RpcReply;
}
async function rest(path: string, body: string): Promise<{ status: number; body: RestReply }> {
  const response = await fetch(`${cli.origin}/a2a/rest${path}`, { method: 'POST', headers: headers('1.0'), body });
  return { status: response.status, body: (await response.json()) as RestReply };
}
/** `{"a":{"a":…{}}}`, `levels` deep, as text (JSON.stringify itself overflows on it). */
const deep = (levels: number) => `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;
const message03 = (extra: string) => `{"kind":"message","role":"user","messageId":"m-${crypto.randomUUID()}","parts":[{"kind":"text","text":"hi"}]${extra}}`;
const message10 = (extra: string) => `{"role":"ROLE_USER","messageId":"m-${crypto.randomUUID()}","parts":[{"text":"hi"}]${extra}}`;

describe('A2A face: hostile input is bounded and validated like ACP (the built CLI)', () => {
  it('10,000-deep metadata is refused -32600 with its id (0.3 and 1.0 JSON-RPC) and 400 over REST, not a stack overflow', async () => {
    const legacy = await rpc(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":${message03(`,"metadata":${deep(10_000)}`)}}}`);
    expect(legacy).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(legacy.error?.message).toMatch(/deeper than 128 levels \(adapters\.a2a\.maxJsonDepth\)/);
    const v1 = await rpc(`{"jsonrpc":"2.0","id":"two","method":"SendMessage","params":{"message":${message10(`,"metadata":${deep(10_000)}`)}}}`, '1.0');
    expect(v1).toMatchObject({ id: 'two', error: { code: -32600 } });
    const viaRest = await rest('/message:send', `{"message":${message10(`,"metadata":${deep(10_000)}`)}}`);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(/deeper than 128 levels/) });
  });

  it('a task id that is not a string is -32602 naming params.id, in both protocol versions', async () => {
    const legacy = await rpc('{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":1e400}}');
    expect(legacy).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(legacy.error?.message).toMatch(/params\.id: .*expected string/i);
    const v1 = await rpc('{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{"id":{"x":1}}}', '1.0');
    expect(v1).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(v1.error?.message).toMatch(/params\.id/);
    const cancel = await rpc('{"jsonrpc":"2.0","id":5,"method":"tasks/cancel","params":{"id":["a"]}}');
    expect(cancel).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it('a 100 KB contextId is refused, over JSON-RPC and REST, and never reaches the log', async () => {
    const huge = 'c'.repeat(100_000);
    const legacy = await rpc(`{"jsonrpc":"2.0","id":6,"method":"message/send","params":{"message":${message03(`,"contextId":"${huge}"`)}}}`);
    expect(legacy).toMatchObject({ id: 6, error: { code: -32602 } });
    expect(legacy.error?.message).toMatch(/params\.message\.contextId/);
    expect(legacy.error!.message.length).toBeLessThan(500);
    const v1 = await rpc(`{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":${message10(`,"contextId":"${huge}"`)}}}`, '1.0');
    expect(v1).toMatchObject({ id: 7, error: { code: -32602 } });
    const viaRest = await rest('/message:send', `{"message":${message10(`,"contextId":"${huge}"`)}}`);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error?.message).toMatch(/body\.message\.contextId/);
    expect(cli.stderr()).not.toContain('c'.repeat(2_000));
  });

  it('a long but accepted contextId is shown clipped in the log, and the face goes on serving turns', async () => {
    const contextId = `ctx-${'k'.repeat(900)}`;
    model.push({ text: 'Still here.' });
    const reply = await rpc(`{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":${message03(`,"contextId":"${contextId}"`)}}}`);
    expect(reply.error).toBeUndefined();
    expect(reply.result?.kind).toBe('task');
    await waitFor(() => /A2A context ctx-k+… \(904 chars\) → session/.test(cli.stderr()), 10_000, 'the context log line');
    expect(cli.stderr()).not.toContain(contextId);
    expect(cli.child.exitCode).toBeNull();
  });
});
