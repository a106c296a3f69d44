import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer, type ScriptStep } from '../helpers/scripted-openai-server.js';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { fuzzSettings } from './hostile-messages.js';

/**
 * The model as the attacker, through the built CLI: arbitrary streams of chunks (text,
 * reasoning, tool calls to real and unknown tools with deep, huge and malformed arguments,
 * broken and hostile chunks, odd finish reasons). Whatever the model sends, `session/list`
 * is answered while it streams, the turn ends (a result or a JSON-RPC error), and the
 * session answers its next prompt. A fifth of FUZZ_RUNS (at least 5): each run is two turns.
 */
const REPLY = 'model-fuzz-ok';
/** A liveness bound, not a speed measure: a stalled event loop misses it by orders of magnitude. */
const LIST_BOUND_MS = 15_000;
const settings = fuzzSettings();
const numRuns = Math.max(5, Math.round(settings.numRuns / 5));

let model: ScriptedOpenAIServer;
let hostile: ScriptStep | undefined;
let cli: AcpCli;
let cwd: string;

beforeAll(async () => {
  // The next hostile step once, then plain answers (to the turn's later steps and to the next prompt).
  model = await startScriptedOpenAIServer(() => {
    const step = hostile ?? { text: REPLY };
    hostile = undefined;
    return step;
  });
  cwd = mkdtempSync(join(tmpdir(), 'plaited-model-fuzz-'));
  cli = startAcpCli({
    cwd,
    args: ['--model', 'openai-compatible:scripted', '--base-url', model.url],
    // Writes and commands are refused: the fuzzer's arguments never touch the machine.
    onPermission: (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((option) => option.kind.startsWith('reject'))!.optionId } }),
  });
  await initialize(cli);
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

const chunk = (delta: unknown, finishReason: unknown = null) =>
  JSON.stringify({ id: 'fz', object: 'chat.completion.chunk', created: 1, model: 'scripted', choices: [{ index: 0, delta, finish_reason: finishReason }] });

const deepArguments = fc.integer({ min: 1, max: 6_000 }).map((depth) => `{"path":"a.txt","x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
const hugeArguments = fc.integer({ min: 1_000, max: 1_500_000 }).map((size) => JSON.stringify({ path: 'b.txt', content: 'y'.repeat(size) }));
const badArguments = fc.constantFrom('{', '{"path":', 'null', '[]', '"str"', '{"__proto__":{"polluted":1}}', '{"path":"\\ud800"}', '', '}{');
const toolArguments = fc.oneof(deepArguments, hugeArguments, badArguments, fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), fc.string({ maxLength: 40 }));
const toolName = fc.constantFrom('read_file', 'write_file', 'glob', 'grep', 'edit_file', 'no_such_tool', '', '__proto__', 'constructor');

/** One tool call as the provider streams it: opened with id and name, arguments in 1–3 pieces. */
const toolCallChunks = fc
  .record({ index: fc.integer({ min: 0, max: 3 }), id: fc.oneof(fc.string({ maxLength: 12 }), fc.constant('dup')), name: toolName, args: toolArguments, pieces: fc.integer({ min: 1, max: 3 }) })
  .map(({ index, id, name, args, pieces }) => {
    const size = Math.ceil(args.length / pieces) || 1;
    const parts = Array.from({ length: pieces }, (_, i) => args.slice(i * size, (i + 1) * size));
    return [
      chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }),
      ...parts.map((part) => chunk({ tool_calls: [{ index, function: { arguments: part } }] })),
    ];
  });

const malformedChunk = fc.oneof(
  fc.constantFrom(
    '{not json}',
    '{"choices":null}',
    '{"choices":[{"index":0,"delta":null}]}',
    '{"__proto__":{"polluted":true},"choices":[]}',
    'null',
    '[]',
    '""',
    '{"choices":[{"index":0,"delta":{"content":{"nested":true}}}]}',
    '{"error":{"message":"model exploded"}}',
  ),
  fc.string({ maxLength: 30 }).filter((text) => !text.includes('\n')),
);

const streamPiece = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 200 }).map((text) => [chunk({ content: text })]) },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((text) => [chunk({ reasoning_content: text })]) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 300_000 }).map((size) => [chunk({ content: 'z'.repeat(size) })]) },
  { weight: 3, arbitrary: toolCallChunks },
  { weight: 2, arbitrary: malformedChunk.map((payload) => [payload]) },
  { weight: 1, arbitrary: fc.constantFrom('stop', 'tool_calls', 'length', 'content_filter', 'weird', null).map((reason) => [chunk({}, reason)]) },
);

const hostileStream = fc.array(streamPiece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.flat());

describe('a hostile model', () => {
  it(
    'never stalls the agent: session/list answers while it streams, and the session answers its next prompt',
    async () => {
      const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
      await fc.assert(
        fc.asyncProperty(hostileStream, async (stream) => {
          hostile = { stream, chunkDelayMs: 2 };
          const turn = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'do your worst' }] }).then(
            (result) => result.stopReason,
            (error: { code?: number }) => error.code,
          );
          const listed = await Promise.race([
            cli.agent.request('session/list', {}).then((result) => result.sessions.some((session) => session.sessionId === sessionId)),
            new Promise<string>((resolve) => setTimeout(() => resolve('session/list not answered in time'), LIST_BOUND_MS).unref()),
          ]);
          expect(listed).toBe(true);
          const ended = await turn;
          expect(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', -32603]).toContain(ended);
          hostile = undefined;

          const from = cli.updates.length;
          const next = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'are you there?' }] });
          expect(next.stopReason).toBe('end_turn');
          expect(agentText(cli, sessionId, from)).toBe(REPLY);
        }),
        { numRuns, seed: settings.seed, endOnFailure: true },
      );
      expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
    },
    120_000 + numRuns * 20_000,
  );
});
