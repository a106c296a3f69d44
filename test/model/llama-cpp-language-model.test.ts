import { describe, it, expect, afterAll } from 'vitest';
import { streamText, generateText, tool, stepCountIs, Output } from 'ai';
import { z } from 'zod';
import { createLlamaCppLanguageModel } from '../../src/model/llama-cpp-language-model.js';
import { requireTestModel } from './test-models.js';

const modelPath = requireTestModel('PLAITED_TEST_CHAT_MODEL');
// One thread: llama.cpp threads contend badly on these shared 2-core machines.
const model = createLlamaCppLanguageModel({ model: modelPath, threads: 1, contextSize: 2048, maxSequences: 2 });

afterAll(async () => {
  await model.close();
});

describe('createLlamaCppLanguageModel with the tiny llama model (generic format)', () => {
  it('streams text through streamText and reports usage', async () => {
    const result = streamText({ model, prompt: 'Say hello.', maxOutputTokens: 24, temperature: 0.7, seed: 1 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('').length).toBeGreaterThan(0);
    expect(await result.finishReason).toBe('length');
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(24);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(model.stats().format).toBe('generic');
  });

  it('emits a well-formed, grammar-constrained tool call that the loop executes', async () => {
    const executed: unknown[] = [];
    const result = await generateText({
      model,
      prompt: 'What is the weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Current weather for a city',
          inputSchema: z.object({ city: z.enum(['Paris', 'Tokyo']), days: z.number().int().optional() }),
          execute: async (input) => {
            executed.push(input);
            return { temperature: 21 };
          },
        }),
        delete_files: tool({
          description: 'Delete files',
          inputSchema: z.object({ confirm: z.boolean() }),
          execute: async (input) => {
            executed.push(input);
            return 'deleted';
          },
        }),
      },
      toolChoice: { type: 'tool', toolName: 'get_weather' },
      maxOutputTokens: 200,
      stopWhen: stepCountIs(1),
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0].toolName).toBe('get_weather');
    expect(['Paris', 'Tokyo']).toContain((result.toolCalls[0].input as { city: string }).city);
    expect(executed).toEqual([result.toolCalls[0].input]);
    expect(result.toolResults[0].output).toEqual({ temperature: 21 });
    expect(result.finishReason).toBe('tool-calls');
  });

  it('continues after a tool result in the history (required choice picks one of the tools)', async () => {
    const result = await generateText({
      model,
      messages: [
        { role: 'user', content: 'Weather in Tokyo, then delete files.' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Tokyo' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'get_weather', output: { type: 'json', value: { temperature: 9 } } }] },
      ],
      tools: {
        get_weather: tool({ inputSchema: z.object({ city: z.string().max(12) }) }),
        delete_files: tool({ inputSchema: z.object({ confirm: z.boolean() }) }),
      },
      toolChoice: 'required',
      maxOutputTokens: 200,
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(['get_weather', 'delete_files']).toContain(result.toolCalls[0].toolName);
  });

  it('offers tools with automatic choice and still ends cleanly', async () => {
    const result = await generateText({
      model,
      prompt: 'Hi',
      tools: { get_weather: tool({ description: 'Weather', inputSchema: z.object({ city: z.string() }) }) },
      maxOutputTokens: 16,
    });
    expect(['stop', 'length', 'tool-calls']).toContain(result.finishReason);
    for (const call of result.toolCalls) expect(call.toolName).toBe('get_weather');
  });

  it('stops generating when aborted and frees its sequence', async () => {
    const controller = new AbortController();
    const generatedBefore = model.stats().tokensGenerated;
    const result = streamText({ model, prompt: 'Tell a long story.', maxOutputTokens: 1500, abortSignal: controller.signal });
    let deltas = 0;
    const kinds = new Set<string>();
    try {
      for await (const part of result.fullStream) {
        kinds.add(part.type);
        if (part.type === 'text-delta' && ++deltas === 5) controller.abort();
      }
    } catch (error) {
      kinds.add(`thrown:${(error as Error).name}`);
    }
    expect(deltas).toBeGreaterThanOrEqual(5);
    expect(deltas).toBeLessThan(1500);
    expect([...kinds].some((k) => k === 'abort' || k === 'error' || k.startsWith('thrown:'))).toBe(true);
    // The sequence comes back once generation has really stopped; then count what was generated.
    while (model.stats().activeSequences > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(model.stats().tokensGenerated - generatedBefore).toBeLessThan(500);
  });

  it('gives two parallel calls their own context sequence', async () => {
    const before = model.stats().sequencesServed;
    const run = async (prompt: string) => {
      const result = streamText({ model, prompt, maxOutputTokens: 200 });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      return text;
    };
    const [a, b] = await Promise.all([run('First session.'), run('Second session.')]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const stats = model.stats();
    expect(stats.sequencesServed - before).toBe(2);
    expect(stats.peakSequences).toBe(2);
    expect(stats.activeSequences).toBe(0);
  });

  it('constrains a JSON response format to its schema', async () => {
    const result = await generateText({
      model,
      prompt: 'Pick a colour.',
      output: Output.object({ schema: z.object({ colour: z.enum(['red', 'green']), count: z.number().int() }) }),
      maxOutputTokens: 300,
    });
    expect(['red', 'green']).toContain(result.output.colour);
    expect(Number.isInteger(result.output.count)).toBe(true);
  });

  it('applies stop sequences and max tokens through doGenerate', async () => {
    const result = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Count.' }] }],
      maxOutputTokens: 5,
    });
    expect(result.finishReason.unified).toBe('length');
    expect(result.usage.outputTokens.total).toBe(5);
    expect(result.content.every((part) => part.type === 'text')).toBe(true);
  });
});

describe('createLlamaCppLanguageModel lifecycle', () => {
  it('stops generating when the consumer cancels the stream', async () => {
    const own = createLlamaCppLanguageModel({ model: modelPath, threads: 1, contextSize: 1536, maxSequences: 1 });
    try {
      const { stream } = await own.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go on.' }] }], maxOutputTokens: 1500 });
      const reader = stream.getReader();
      let deltas = 0;
      while (deltas < 3) {
        const { value } = await reader.read();
        if (value?.type === 'text-delta') deltas++;
      }
      await reader.cancel();
      while (own.stats().activeSequences > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(own.stats().tokensGenerated).toBeLessThan(500);
    } finally {
      await own.close();
    }
  });

  it('close() stops a running generation and frees the model; later calls fail with model_closed', async () => {
    const own = createLlamaCppLanguageModel({ model: modelPath, threads: 1, contextSize: 1280, maxSequences: 1 });
    const { stream } = await own.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go on.' }] }], maxOutputTokens: 1500 });
    const reader = stream.getReader();
    await reader.read();
    await own.close();
    const rest: string[] = [];
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          rest.push(value.type);
        }
      })(),
    ).rejects.toMatchObject({ code: 'model_closed' });
    expect(rest).not.toContain('finish');
    await expect(own.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] })).rejects.toMatchObject({ code: 'model_closed' });
  });
});

describe('createLlamaCppLanguageModel in the FunctionGemma format', () => {
  it('streams text through the raw FunctionGemma prompt', async () => {
    const fg = createLlamaCppLanguageModel({ model: modelPath, threads: 1, contextSize: 1024, chatFormat: 'functiongemma', maxSequences: 1 });
    try {
      const result = streamText({
        model: fg,
        prompt: 'Hello',
        tools: { get_weather: tool({ description: 'Weather', inputSchema: z.object({ city: z.string() }) }) },
        maxOutputTokens: 16,
      });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      expect(['stop', 'length', 'tool-calls']).toContain(await result.finishReason);
      expect(fg.stats().format).toBe('functiongemma');
      expect(text).not.toContain('<start_function_call>');
    } finally {
      await fg.close();
    }
  });
});

describe('createLlamaCppLanguageModel errors', () => {
  it('names the missing file and how to point at a local one', async () => {
    const missing = createLlamaCppLanguageModel({ model: './no/such/model.gguf', threads: 1 });
    await expect(missing.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] })).rejects.toMatchObject({
      code: 'model_file_not_found',
      message: expect.stringMatching(/no\/such\/model\.gguf.*llama-cpp:/s),
    });
  });
});
