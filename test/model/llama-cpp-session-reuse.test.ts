import { afterAll, describe, expect, it } from 'vitest';
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { createLlamaCppLanguageModel, type LocalGenerationStats } from '../../src/model/llama-cpp-language-model.js';
import { requireTestModel } from './test-models.js';

const modelPath = requireTestModel('PLAITED_TEST_CHAT_MODEL');
const generations: LocalGenerationStats[] = [];
// One thread: llama.cpp threads contend badly on these shared 2-core machines.
const model = createLlamaCppLanguageModel({
  model: modelPath,
  threads: 1,
  contextSize: 4096,
  maxSequences: 2,
  residentSequences: 1,
  onGeneration: (generation) => generations.push(generation),
});

afterAll(async () => {
  await model.close();
});

const SYSTEM = 'You are a coding agent. Read before you edit; keep answers short. '.repeat(30);
const session = (sessionId: string) => ({ 'llama-cpp': { sessionId } });
const user = (text: string): LanguageModelV3Prompt[number] => ({ role: 'user', content: [{ type: 'text', text }] });

async function run(prompt: LanguageModelV3Prompt, sessionId?: string): Promise<{ text: string; stats: LocalGenerationStats }> {
  const before = generations.length;
  const result = await model.doGenerate({ prompt, maxOutputTokens: 16, temperature: 0, ...(sessionId ? { providerOptions: session(sessionId) } : {}) });
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  // Reported when the sequence is handed back, just after the stream ends.
  let stats: LocalGenerationStats | undefined;
  while (!(stats = generations.slice(before).find((generation) => generation.sessionId === sessionId))) await new Promise((resolve) => setTimeout(resolve, 5));
  return { text, stats };
}

describe('llama.cpp provider: session-affine sequences', () => {
  it("a session's next call evaluates only the tokens after the common prefix", async () => {
    const first: LanguageModelV3Prompt = [{ role: 'system', content: SYSTEM }, user('List the files in src.')];
    const one = await run(first, 'reuse-a');
    expect(one.stats.reusedTokens).toBe(0);
    expect(one.stats.evaluatedTokens).toBeGreaterThan(300);

    const second: LanguageModelV3Prompt = [...first, { role: 'assistant', content: [{ type: 'text', text: one.text }] }, user('Now the tests.')];
    const two = await run(second, 'reuse-a');
    const grown = two.stats.promptTokens - one.stats.promptTokens;
    // At least the whole first prompt is found in the sequence; what is evaluated is the new part, give or take a token.
    expect(two.stats.reusedTokens).toBeGreaterThanOrEqual(one.stats.promptTokens - 1);
    expect(two.stats.evaluatedTokens).toBeLessThanOrEqual(grown + 1);
    expect(two.stats.evaluatedTokens + two.stats.reusedTokens).toBe(two.stats.promptTokens - 1);

    // The same prompt without a session starts from nothing.
    const anonymous = await run(second);
    expect(anonymous.stats.reusedTokens).toBe(0);
  });

  it('an evicted session falls back to a fresh sequence and still answers', async () => {
    const a: LanguageModelV3Prompt = [{ role: 'system', content: SYSTEM }, user('Session A asks.')];
    const b: LanguageModelV3Prompt = [{ role: 'system', content: `${SYSTEM} Other.` }, user('Session B asks.')];
    const evictionsBefore = model.stats().evictions;
    await run(a, 'evict-a');
    expect(model.stats().residentSessions).toBe(1);
    await run(b, 'evict-b'); // one resident sequence: A's is evicted
    expect(model.stats().evictions).toBeGreaterThan(evictionsBefore);
    const again = await run([...a, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, user('A again.')], 'evict-a');
    expect(again.stats.reusedTokens).toBe(0);
    expect(again.stats.outputTokens).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(again.stats.finishReason);
  });

  it('two sessions generate in parallel on their own sequences', async () => {
    const peakBefore = model.stats().peakSequences;
    const [x, y] = await Promise.all([
      run([{ role: 'system', content: SYSTEM }, user('Parallel one.')], 'par-1'),
      run([{ role: 'system', content: SYSTEM }, user('Parallel two.')], 'par-2'),
    ]);
    expect(x.stats.outputTokens).toBeGreaterThan(0);
    expect(y.stats.outputTokens).toBeGreaterThan(0);
    expect(Math.max(peakBefore, model.stats().peakSequences)).toBe(2);
  });

  it('a cancel during prefix evaluation stops it before the whole prompt is evaluated', async () => {
    const long: LanguageModelV3Prompt = [{ role: 'system', content: SYSTEM.repeat(4) }, user('A long prompt.')];
    const controller = new AbortController();
    const before = generations.length;
    const { stream } = await model.doStream({ prompt: long, maxOutputTokens: 16, abortSignal: controller.signal, providerOptions: session('cancel') });
    controller.abort(new Error('cancelled by the test'));
    const parts: LanguageModelV3StreamPart[] = [];
    let failure: unknown;
    const reader = stream.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
    } catch (error) {
      failure = error;
    }
    expect((failure as Error).message).toBe('cancelled by the test');
    expect(parts.some((part) => part.type === 'text-delta')).toBe(false);
    while (generations.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    const cancelled = generations[generations.length - 1]!;
    expect(cancelled.finishReason).toBe('cancelled');
    expect(cancelled.promptTokens).toBeGreaterThan(1500);
    expect(cancelled.evaluatedTokens).toBeLessThan(cancelled.promptTokens / 2);
    expect(cancelled.outputTokens).toBe(0);
  });

  it('measures a prompt in its own tokens, with the room its context leaves for the answer', async () => {
    const prompt: LanguageModelV3Prompt = [{ role: 'system', content: SYSTEM }, user('How big am I?')];
    const budget = await model.measurePrompt({ prompt });
    expect(budget.contextSize).toBe(4096);
    expect(budget.maxOutputTokens).toBe(2048);
    const done = await run(prompt, 'measure');
    expect(done.stats.promptTokens).toBe(budget.promptTokens);
    const huge = await model.measurePrompt({ prompt: [{ role: 'system', content: SYSTEM.repeat(12) }, user('x')] });
    expect(huge.promptTokens).toBeGreaterThan(4096);
    expect(huge.maxOutputTokens).toBe(0);
    await expect(model.doGenerate({ prompt: [{ role: 'system', content: SYSTEM.repeat(12) }, user('x')] })).rejects.toMatchObject({
      code: 'context_exceeded',
    });
  });
});
