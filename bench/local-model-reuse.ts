/**
 * The local provider at the limit, with the tiny GGUF and a realistic prompt (the real system
 * prompt, project rules and every built-in tool): time to first token of step 2 of a tool-calling
 * turn and of turn 2, with session reuse, with reuse switched off, and with node-llama-cpp's own
 * LlamaChat/LlamaChatSession on one reused sequence (the reference); the prompt tokens each
 * evaluated (node-llama-cpp's meters); generation speed by thread count. Every figure is the
 * median of several runs, with the load average beside it (the machine is shared).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatHistoryItem, ChatModelFunctions, ChatSessionModelFunctions, LlamaContext } from 'node-llama-cpp';
import { loadDefaultTools } from '../src/agent/default-tools.js';
import { baseSystemPrompt } from '../src/agent/system-prompt.js';
import { configSchema } from '../src/config/schema.js';
import { jsonSchemaToGbnf } from '../src/model/json-schema-to-gbnf.js';
import { createLlamaCppLanguageModel } from '../src/model/llama-cpp-language-model.js';
import { acquireSharedModel, defaultThreads, getSharedLlama, loadNodeLlamaCpp } from '../src/model/shared-llama.js';
import { median } from './stats.js';

const RUNS = 7;
const CONTEXT = 4096;

interface Scenario {
  /** The first request, and the follow-up that extends it (step 2 after a tool call, or turn 2). */
  first: LanguageModelV3Prompt;
  next(firstAnswer: string): LanguageModelV3Prompt;
}

async function realisticPrompt(): Promise<{ system: string; tools: LanguageModelV3FunctionTool[] }> {
  const root = join(import.meta.dirname ?? process.cwd(), '..', '..');
  // The rules extension appends the project's rules; the start of this repository's design notes
  // stands in for a typical AGENTS.md. A fixed size keeps the prompt at ~3k tokens as the notes grow.
  const rules = readFileSync(join(root, 'docs/DESIGN-NOTES.md'), 'utf8').slice(0, 5_600);
  const system = `${baseSystemPrompt({ cwd: root })}\n\n# Project rules (AGENTS.md)\n${rules}`;
  const tools = (await loadDefaultTools(configSchema.parse({}))).map((tool) => ({
    type: 'function' as const,
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  }));
  return { system, tools };
}

const user = (text: string): LanguageModelV3Prompt[number] => ({ role: 'user', content: [{ type: 'text', text }] });
const TOOL_OUTPUT = Array.from({ length: 30 }, (_, i) => `${i + 1}: export function helper${i}(value: string) { return value.trim(); }`).join('\n');

function scenarios(system: string): Record<'step2' | 'turn2', Scenario> {
  const first: LanguageModelV3Prompt = [{ role: 'system', content: system }, user('What does src/agent/agent-loop.ts do? Read it first.')];
  return {
    step2: {
      first,
      next: (answer) => [
        ...first,
        {
          role: 'assistant',
          content: [
            ...(answer ? [{ type: 'text' as const, text: answer }] : []),
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: { path: 'src/agent/agent-loop.ts' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'read_file', output: { type: 'text', value: TOOL_OUTPUT } }] },
      ],
    },
    turn2: {
      first,
      next: (answer) => [...first, { role: 'assistant', content: [{ type: 'text', text: answer }] }, user('Thanks. And how are its tool calls run?')],
    },
  };
}

interface Sample {
  ttftMs: number;
  evaluated: number;
  newTokens: number;
  promptTokens: number;
}

interface Runner {
  once(run: number): Promise<Sample>;
  close(): Promise<void>;
}

/** Our provider: TTFT of the follow-up (measure, prefill, one token), and node-llama-cpp's counts for both requests. */
async function providerRunner(path: string, tools: LanguageModelV3FunctionTool[], scenario: Scenario, reuse: boolean): Promise<Runner> {
  const model = createLlamaCppLanguageModel({ model: path, threads: 1, contextSize: CONTEXT, maxSequences: 1, residentSequences: reuse ? 1 : 0 });
  await model.measurePrompt({ prompt: scenario.first }); // loads the model outside the timings
  return {
    async once(run) {
      const providerOptions = { 'llama-cpp': { sessionId: `bench-${run}` } };
      const first = await model.doGenerate({ prompt: scenario.first, tools, maxOutputTokens: 8, temperature: 0, providerOptions });
      const answer = first.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const next = scenario.next(answer);
      // As the agent runs a step: the prompt is measured against the context, then sent.
      const started = performance.now();
      await model.measurePrompt({ prompt: next, tools, maxOutputTokens: 1 });
      const second = await model.doGenerate({ prompt: next, tools, maxOutputTokens: 1, temperature: 0, providerOptions });
      return {
        ttftMs: performance.now() - started,
        evaluated: second.usage.inputTokens.noCache ?? 0,
        newTokens: (second.usage.inputTokens.total ?? 0) - (first.usage.inputTokens.total ?? 0),
        promptTokens: second.usage.inputTokens.total ?? 0,
      };
    },
    close: () => model.close(),
  };
}

/** The reference: node-llama-cpp's own chat on one reused sequence (LlamaChat continuing after the tool result for step 2, as LlamaChatSession does; LlamaChatSession for turn 2). */
async function referenceRunner(path: string, system: string, tools: LanguageModelV3FunctionTool[], kind: 'step2' | 'turn2'): Promise<Runner> {
  const { LlamaChat, LlamaChatSession, resolveChatWrapper, GeneralChatWrapper } = await loadNodeLlamaCpp();
  await getSharedLlama();
  const { model, release } = await acquireSharedModel(path);
  const functions: ChatModelFunctions = Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, params: jsonSchemaToGbnf(tool.inputSchema) }]));
  // LlamaChatSession's functions carry handlers; never called here (at most one token is generated after the prompt).
  const sessionFunctions: ChatSessionModelFunctions = Object.fromEntries(
    Object.entries(functions).map(([name, fn]) => [name, { ...fn, handler: () => 'not run in the benchmark' }]),
  );
  const context: LlamaContext = await model.createContext({ contextSize: CONTEXT, sequences: 1, threads: 1 });
  const chatWrapper = resolveChatWrapper(model) ?? new GeneralChatWrapper();
  const question = 'What does src/agent/agent-loop.ts do? Read it first.';
  return {
    async once() {
      const sequence = context.getSequence();
      try {
        if (kind === 'turn2') {
          const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system, chatWrapper, autoDisposeSequence: false });
          await session.prompt(question, { functions: sessionFunctions, maxTokens: 8, temperature: 0 });
          const before = sequence.tokenMeter.usedInputTokens;
          const started = performance.now();
          await session.prompt('Thanks. And how are its tool calls run?', { functions: sessionFunctions, maxTokens: 1, temperature: 0 });
          const ttftMs = performance.now() - started;
          session.dispose({ disposeSequence: false });
          return { ttftMs, evaluated: sequence.tokenMeter.usedInputTokens - before, newTokens: 0, promptTokens: 0 };
        }
        const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
        const history: ChatHistoryItem[] = [{ type: 'system', text: system }, { type: 'user', text: question }, { type: 'model', response: [] }];
        const first = await chat.generateResponse(history, { functions, documentFunctionParams: true, maxTokens: 8, temperature: 0 });
        const next: ChatHistoryItem[] = [
          ...history.slice(0, -1),
          {
            type: 'model',
            response: [
              ...(first.response ? [first.response] : []),
              { type: 'functionCall', name: 'read_file', params: { path: 'src/agent/agent-loop.ts' }, result: TOOL_OUTPUT },
            ],
          },
        ];
        const before = sequence.tokenMeter.usedInputTokens;
        const started = performance.now();
        await chat.generateResponse(next, { functions, documentFunctionParams: true, maxTokens: 1, temperature: 0 });
        const ttftMs = performance.now() - started;
        chat.dispose({ disposeSequence: false });
        return { ttftMs, evaluated: sequence.tokenMeter.usedInputTokens - before, newTokens: 0, promptTokens: 0 };
      } finally {
        await sequence.dispose();
      }
    },
    async close() {
      await context.dispose();
      await release();
    },
  };
}

/** Tokens per second of a warm model generating `tokens` tokens, by thread count. */
async function tokensPerSecond(path: string, threads: number, tokens: number): Promise<number> {
  const model = createLlamaCppLanguageModel({ model: path, threads, contextSize: 1024, maxSequences: 1 });
  const prompt: LanguageModelV3Prompt = [user('Tell me a story.')];
  const rates: number[] = [];
  try {
    await model.doGenerate({ prompt, maxOutputTokens: 4 });
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const result = await model.doGenerate({ prompt, maxOutputTokens: tokens, temperature: 0.8 });
      rates.push(((result.usage.outputTokens.total ?? 0) / (performance.now() - started)) * 1000);
    }
  } finally {
    await model.close();
  }
  return Math.round(median(rates) * 10) / 10;
}

const round = (value: number) => Math.round(value * 10) / 10;

export async function benchLocalModelReuse(path: string): Promise<Record<string, number>> {
  const results: Record<string, number> = { load_average_1m_start: round(loadavg()[0]!) };
  const { system, tools } = await realisticPrompt();
  const all = scenarios(system);
  for (const kind of ['step2', 'turn2'] as const) {
    const runners = {
      reuse: await providerRunner(path, tools, all[kind], true),
      noReuse: await providerRunner(path, tools, all[kind], false),
      reference: await referenceRunner(path, system, tools, kind),
    };
    const samples: Record<keyof typeof runners, Sample[]> = { reuse: [], noReuse: [], reference: [] };
    try {
      // Interleaved, so a change in the machine's load hits the three alike.
      for (let run = 0; run < RUNS; run++) {
        for (const name of Object.keys(runners) as Array<keyof typeof runners>) samples[name].push(await runners[name].once(run));
      }
    } finally {
      for (const runner of Object.values(runners)) await runner.close();
    }
    const med = (name: keyof typeof runners, field: keyof Sample) => median(samples[name].map((sample) => sample[field]));
    results[`${kind}_prompt_tokens`] = med('reuse', 'promptTokens');
    results[`${kind}_new_prompt_tokens`] = med('reuse', 'newTokens');
    results[`${kind}_evaluated_reuse`] = med('reuse', 'evaluated');
    results[`${kind}_evaluated_no_reuse`] = med('noReuse', 'evaluated');
    results[`${kind}_evaluated_reference`] = med('reference', 'evaluated');
    results[`${kind}_ttft_reuse_ms`] = round(med('reuse', 'ttftMs'));
    results[`${kind}_ttft_no_reuse_ms`] = round(med('noReuse', 'ttftMs'));
    results[`${kind}_ttft_reference_ms`] = round(med('reference', 'ttftMs'));
    results[`${kind}_ttft_reuse_vs_reference`] = Math.round((med('reuse', 'ttftMs') / med('reference', 'ttftMs')) * 100) / 100;
    results[`${kind}_ttft_reuse_vs_no_reuse`] = Math.round((med('reuse', 'ttftMs') / med('noReuse', 'ttftMs')) * 100) / 100;
  }
  results.tokens_per_s_1_thread = await tokensPerSecond(path, 1, 64);
  results.tokens_per_s_2_threads = await tokensPerSecond(path, 2, 64);
  results.default_threads = defaultThreads();
  results.tokens_per_s_default_threads = await tokensPerSecond(path, defaultThreads(), 64);
  results.load_average_1m_end = round(loadavg()[0]!);
  return results;
}
