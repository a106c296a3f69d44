import { describe, expect, it } from 'vitest';
import type { PromptBudget, PromptBudgetCall } from '../../src/model/prompt-budget.js';
import { LocalModelError } from '../../src/model/local-model-error.js';
import { routedModel, type RouteInput } from './routed-mock-model.js';
import type { MockStep } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

/**
 * The loop checks each step against a model that measures its prompts (as the local provider
 * does), with that model's numbers: the scripted model here counts a token per 4 characters of
 * the prompt (tools left out, to keep the numbers small), in a context of 1,000 tokens.
 */
const CONTEXT = 1000;

function measuringModel(route: (input: RouteInput) => MockStep) {
  const model = routedModel(route);
  const measured: number[] = [];
  const measurePrompt = async (call: PromptBudgetCall): Promise<PromptBudget> => {
    const promptTokens = Math.ceil(JSON.stringify(call.prompt).length / 4);
    measured.push(promptTokens);
    return { promptTokens, contextSize: CONTEXT, maxOutputTokens: Math.max(0, Math.min(call.maxOutputTokens ?? 2048, CONTEXT - promptTokens)) };
  };
  return Object.assign(model, { measurePrompt, measured });
}

const words = (word: string, count: number) => `${word} `.repeat(count);

describe('context budget of models that measure their prompts', () => {
  it("names the session in every step's provider options", async () => {
    const model = measuringModel(() => ({ text: 'hello' }));
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    await collect(agent, sessionId, 'hi');
    expect(model.calls[0]!.options.providerOptions).toEqual({ 'llama-cpp': { sessionId } });
    expect(model.measured.length).toBe(1);
  });

  it('compacts by the model’s own count, not the 128k default estimate', async () => {
    const model = measuringModel((input) =>
      input.system.includes('You compact a conversation') ? { text: 'SUMMARY of old turns.' } : { text: `answer ${words('reply', 60)}` },
    );
    const agent = makeAgent(model, { agent: { compactAt: 0.8, compactKeepTurns: 1 } });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const turns = [];
    for (const text of [`one ${words('apples', 150)}`, `two ${words('pears', 150)}`, 'three']) turns.push(await collect(agent, sessionId, text));
    const statuses = turns.flat().flatMap((event) => (event.type === 'compaction' ? [event.status] : []));
    expect(statuses).toEqual(['in_progress', 'completed']);
    for (const turn of turns) expect(turn.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(model.calls.at(-1)!.text).toContain('[Summary of the earlier conversation]');
  });

  it('ends the turn max_tokens with a notice when even compaction leaves no room, without calling the model', async () => {
    const model = measuringModel(() => ({ text: 'never' }));
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const events = await collect(agent, sessionId, words('huge', 1200));
    expect(events.some((event) => event.type === 'error')).toBe(false);
    const notice = events.find((event) => event.type === 'notice');
    expect(notice).toMatchObject({ level: 'warning' });
    expect(JSON.stringify(notice)).toMatch(/no longer fits the local model's context: the prompt is \d+ of 1000 tokens/);
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'max_tokens' });
    expect(model.calls.filter((call) => !call.system.includes('You compact a conversation'))).toHaveLength(0);
    // The session goes on.
    const next = await collect(agent, sessionId, 'short');
    expect(next.at(-1)).toMatchObject({ type: 'turn-end' });
  });

  it('a context_exceeded failure of the model ends the turn max_tokens with its message, not an error', async () => {
    const model = routedModel(() => ({ text: 'unused' }));
    model.doStream = async () => {
      throw new LocalModelError('context_exceeded', 'tiny.gguf', 'The prompt leaves no room for an answer in the local model\'s context of 512 tokens.');
    };
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const events = await collect(agent, sessionId, 'hi');
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(events.find((event) => event.type === 'notice')).toMatchObject({ message: expect.stringContaining('no room for an answer') });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'max_tokens' });
    expect(textOf(events)).toBe('');
  });
});
