import { describe, expect, it } from 'vitest';
import type { ModelMessage } from 'ai';
import { createAgent } from '../../src/agent/create-agent.js';
import { estimateTokens, summariseOldTurns, truncateOldToolOutputs, compactionLimit } from '../../src/agent/compact-history.js';
import { configSchema } from '../../src/config/schema.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { routedModel } from './routed-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

const filler = (word: string) => `${word} `.repeat(120);

describe('compaction', () => {
  it('summarises older turns when the history passes compactAt; the session stays usable and the store keeps everything', async () => {
    const cwd = tempProject();
    let summaries = 0;
    const model = routedModel((input) => {
      if (input.system.includes('You compact a conversation')) {
        summaries++;
        return { text: 'SUMMARY: the user talked about apples and bananas.' };
      }
      return { text: `answer ${filler('reply')}` };
    });
    const agent = makeAgent(model, { agent: { contextWindow: 600, compactAt: 0.8, compactKeepTurns: 1 } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const first = await collect(agent, sessionId, `apples ${filler('apples')}`);
    expect(first.some((event) => event.type === 'compaction')).toBe(false);
    await collect(agent, sessionId, `bananas ${filler('bananas')}`);
    const third = await collect(agent, sessionId, 'cherries, short');
    const compactions = third.filter((event) => event.type === 'compaction');
    expect(compactions.map((event) => event.status)).toEqual(['in_progress', 'completed']);
    expect(compactions[1]).toMatchObject({ summary: 'SUMMARY: the user talked about apples and bananas.' });
    expect(summaries).toBeGreaterThanOrEqual(1);
    expect(textOf(third)).toContain('answer');
    const lastRequest = model.calls.at(-1)!;
    expect(lastRequest.text).toContain('[Summary of the earlier conversation]');
    expect(lastRequest.text).not.toContain('apples apples');
    expect(lastRequest.text).toContain('cherries, short');
    // The stored history still has every turn (what session/load replays).
    const history = await agent.sessions.history(sessionId);
    const prompts = history.flatMap((event) => (event.type === 'user-message' ? [JSON.stringify(event.content)] : []));
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).toContain('apples apples');
    // A fresh agent over the same store still loads the full message history.
    const reopenedModel = scriptedModel([{ text: 'back' }]);
    const reopened = createAgent({ config: configSchema.parse({}), model: reopenedModel });
    try {
      expect(await reopened.sessions.get(sessionId, cwd)).toBeDefined();
      const events = await collect(reopened, sessionId, 'still there?');
      expect(textOf(events)).toBe('back');
      expect(JSON.stringify(reopenedModel.calls[0]!.prompt)).toContain('apples apples');
    } finally {
      await reopened.stop();
    }
  });

  it('a failed summary is reported and the turn still runs', async () => {
    const cwd = tempProject();
    const model = routedModel((input) =>
      input.system.includes('You compact a conversation') ? { error: new Error('summary model down') } : { text: filler('long') },
    );
    const agent = makeAgent(model, { agent: { contextWindow: 300, compactKeepTurns: 1 } });
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, filler('one'));
    const events = await collect(agent, sessionId, 'two');
    const failed = events.find((event) => event.type === 'compaction' && event.status === 'failed');
    expect(failed).toMatchObject({ error: expect.stringContaining('summary model down') });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
  });

  it('truncates tool outputs older than N turns to a stub and keeps recent ones', () => {
    const turn = (n: number): ModelMessage[] => [
      { role: 'user', content: [{ type: 'text', text: `question ${n}` }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${n}`, toolName: 'read_file', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${n}`, toolName: 'read_file', output: { type: 'text', value: `output ${n}` } }] },
    ];
    const messages = [...turn(1), ...turn(2), ...turn(3)];
    const cut = truncateOldToolOutputs(messages, 2);
    const text = JSON.stringify(cut);
    expect(text).not.toContain('output 1');
    expect(text).toContain('output 2');
    expect(text).toContain('output 3');
    expect(text).toContain('truncated by compaction');
    expect(cut[4]).toBe(messages[4]);
    expect(estimateTokens(cut)).toBeLessThanOrEqual(estimateTokens(messages) + 20);
    expect(compactionLimit(0.5, 1000)).toBe(500);
    expect(compactionLimit(700, 1000)).toBe(700);
  });

  it('has nothing to summarise when every turn is kept', async () => {
    const model = scriptedModel([]);
    const result = await summariseOldTurns({
      model,
      messages: [{ role: 'user', content: 'only turn' }],
      keepTurns: 2,
      signal: new AbortController().signal,
    });
    expect(result).toBeUndefined();
    expect(model.calls).toHaveLength(0);
  });

  it('compacts between steps of one long turn: earlier tool outputs of the turn become stubs, the latest stays', async () => {
    const cwd = tempProject();
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    writeFileSync(join(cwd, 'big.txt'), 'bigword bigword bigword bigword bigword\n'.repeat(120));
    const model = scriptedModel([
      { toolCalls: [{ name: 'read_file', input: { path: 'big.txt' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'big.txt' } }] },
      { text: 'read it twice' },
    ]);
    const agent = makeAgent(model, { agent: { contextWindow: 1000, compactAt: 0.8 } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'read big.txt twice');
    expect(textOf(events)).toBe('read it twice');
    expect(events.filter((event) => event.type === 'compaction' && event.status === 'completed').length).toBeGreaterThanOrEqual(1);
    const third = JSON.stringify(model.calls[2]!.prompt);
    expect(third.match(/bigword bigword/g)?.length ?? 0).toBeGreaterThan(0);
    expect(third).toContain('truncated by compaction');
    // One copy of the file's text is left: the latest read.
    expect(third.split('bigword bigword bigword bigword').length - 1).toBeLessThan(200);
    const second = JSON.stringify(model.calls[1]!.prompt);
    expect(third.length).toBeLessThan(second.length * 1.5);
    // The stored history keeps both outputs.
    const history = await agent.sessions.history(sessionId);
    const outputs = history.filter((event) => event.type === 'tool-call-update' && event.status === 'completed');
    expect(outputs.every((event) => JSON.stringify(event).includes('bigword bigword'))).toBe(true);
    expect(outputs).toHaveLength(2);
  });
});
