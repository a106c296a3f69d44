import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { initialize, startAcpCli } from '../helpers/acp-cli.js';
import { RECORDED, recordedEvents, startProviderWireServer } from '../helpers/provider-wire-server.js';

const tu = (index: number, id: string, name: string, json: string) => [
  { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
  { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } },
  { type: 'content_block_stop', index },
];
it('scratch: anthropic parallel', async () => {
  const wire = await startProviderWireServer();
  const start = recordedEvents(RECORDED.anthropic.toolUse)[0]!;
  wire.push(
    { wire: 'anthropic', events: [start, ...tu(0, 'toolu_a', 'read_file', '{"path":"notes.txt"}'), ...tu(1, 'toolu_b', 'read_file', '{"path":"other.txt"}'), ...tu(2, 'toolu_c', 'no_such_tool', '{}'), ...tu(3, 'toolu_d', 'read_file', '{"path": '), { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } }, { type: 'message_stop' }] },
    { wire: 'anthropic', events: [RECORDED.anthropic.text] },
  );
  wire.push({ wire: 'google', events: [{ candidates: [{ content: { parts: [{ text: 'Let me think about files.', thought: true }, { functionCall: { name: 'read_file', args: { path: 'notes.txt' } }, thoughtSignature: 'SIG1' }, { functionCall: { name: 'read_file', args: { path: 'other.txt' } } }], role: 'model' }, index: 0 }], usageMetadata: { promptTokenCount: 29, candidatesTokenCount: 15, totalTokenCount: 89, thoughtsTokenCount: 45 }, modelVersion: 'gemini-2.5-flash' }, { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 29, candidatesTokenCount: 15, totalTokenCount: 89, thoughtsTokenCount: 45 }, modelVersion: 'gemini-2.5-flash' }] }, { wire: 'google', events: [RECORDED.google.text] });
  const cwd = mkdtempSync(join(tmpdir(), 'scratch-'));
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\n');
  writeFileSync(join(cwd, 'other.txt'), 'beta\n');
  for (const [p, m, env] of [['anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY'], ['google', 'gemini-2.5-flash', 'GOOGLE_GENERATIVE_AI_API_KEY']] as const) {
  const cli = startAcpCli({ cwd, args: ['--model', `${p}:${m}`, '--base-url', wire.baseURL(p)], env: { [env]: 'k-123456789' } });
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const r = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read it' }] }).catch((e) => e);
  console.log(p, JSON.stringify(r));
  const req = wire.requests.filter((q) => q.wire === p)[1];
  console.log(JSON.stringify(req?.body.messages ?? req?.body.contents, null, 1)?.slice(0, 5000));
  console.log(cli.updates.filter((u) => ['usage_update', 'agent_thought_chunk', 'tool_call'].includes(u.update.sessionUpdate)).map((u) => JSON.stringify(u.update).slice(0, 300)).join('\n'));
  await cli.close();
  }
  await wire.close();
  expect(1).toBe(1);
});
