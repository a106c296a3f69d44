/**
 * Local model speed: embeddings per second for 1,000 short texts (cold cache, warm in-memory
 * cache, warm SQLite cache after a "restart"), tokens per second of the tiny chat model (cold,
 * including loading llama.cpp and the model, and warm), and prefix reuse at the limit
 * (local-model-reuse.ts). Returns numbers; prints only when run
 * directly (`node dist/bench/local-models.js`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEmbedder } from '../src/model/embedder.js';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { createLlamaCppLanguageModel, type LlamaCppLanguageModel } from '../src/model/llama-cpp-language-model.js';
import { benchLocalModelReuse } from './local-model-reuse.js';
import { testModelPath } from './test-model-path.js';

const VERBS = ['read', 'write', 'delete', 'list', 'search', 'send', 'fetch', 'create', 'update', 'open'];
const OBJECTS = ['file', 'email', 'calendar event', 'web page', 'database row', 'image', 'weather report', 'note', 'ticket', 'folder'];
const PLACES = ['in the project', 'for the user', 'from the server', 'on disk', 'in the cloud', 'by name', 'with a filter', 'as json', 'today', 'quickly'];

/** 1,000 distinct short texts, deterministic. */
function shortTexts(): string[] {
  const texts: string[] = [];
  for (const verb of VERBS) for (const object of OBJECTS) for (const place of PLACES) texts.push(`${verb} the ${object} ${place}`);
  return texts;
}

function perSecond(count: number, ms: number): number {
  return Math.round((count / Math.max(ms, 1e-3)) * 1000 * 10) / 10;
}

/** Abort a long generation after a few deltas; how long until the stream has ended. */
async function abortLatency(model: LlamaCppLanguageModel, prompt: LanguageModelV3Prompt): Promise<number> {
  const controller = new AbortController();
  const { stream } = await model.doStream({ prompt, maxOutputTokens: 2000, abortSignal: controller.signal });
  const reader = stream.getReader();
  let deltas = 0;
  let abortedAt = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta' && ++deltas === 5) {
        abortedAt = performance.now();
        controller.abort();
      }
    }
  } catch {
    // The stream ends with the abort reason.
  }
  return Math.round((performance.now() - abortedAt) * 10) / 10;
}

export async function benchLocalModels(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  const chatPath = testModelPath('PLAITED_TEST_CHAT_MODEL', 'llama-2-tiny-random.gguf', 'the local-model benchmark needs llama-2-tiny-random.gguf');
  const embedPath = testModelPath('PLAITED_TEST_EMBED_MODEL', 'glove-6B-100d-bert.gguf', 'the local-model benchmark needs glove-6B-100d-bert.gguf');

  // Tiny chat model: cold includes loading the llama.cpp binding, the model and its context.
  const tokens = 256;
  const prompt: LanguageModelV3Prompt = [{ role: 'user', content: [{ type: 'text', text: 'Tell me a story.' }] }];
  const chat = createLlamaCppLanguageModel({ model: chatPath, threads: 1, contextSize: 1024, maxSequences: 1 });
  try {
    let start = performance.now();
    let result = await chat.doGenerate({ prompt, maxOutputTokens: tokens, temperature: 0.8 });
    const coldMs = performance.now() - start;
    results.chat_cold_first_reply_ms = Math.round(coldMs);
    results.chat_tokens_per_s_cold = perSecond(result.usage.outputTokens.total ?? 0, coldMs);
    start = performance.now();
    result = await chat.doGenerate({ prompt, maxOutputTokens: tokens, temperature: 0.8 });
    results.chat_tokens_per_s_warm = perSecond(result.usage.outputTokens.total ?? 0, performance.now() - start);
    results.chat_abort_to_stream_end_ms = await abortLatency(chat, prompt);
  } finally {
    await chat.close();
  }

  // Prefix reuse across steps and turns against no reuse and node-llama-cpp's own chat session; speed by thread count.
  Object.assign(results, await benchLocalModelReuse(chatPath));

  // Embeddings: a fresh embedder (model load timed apart), then the same batch from memory,
  // then a new embedder on the same SQLite file (a restart).
  const texts = shortTexts();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-bench-embed-'));
  const cacheDb = join(dir, 'vectors.db');
  try {
    const embedder = createEmbedder({ model: embedPath, threads: 1, cacheDb });
    try {
      let start = performance.now();
      await embedder.dimensions();
      results.embed_model_load_ms = Math.round(performance.now() - start);
      start = performance.now();
      await embedder.embed(texts);
      results.embed_texts_per_s_cold_cache = perSecond(texts.length, performance.now() - start);
      start = performance.now();
      await embedder.embed(texts);
      results.embed_texts_per_s_warm_memory = perSecond(texts.length, performance.now() - start);
    } finally {
      await embedder.close();
    }
    const restarted = createEmbedder({ model: embedPath, threads: 1, cacheDb });
    try {
      const start = performance.now();
      await restarted.embed(texts);
      results.embed_texts_per_s_warm_sqlite = perSecond(texts.length, performance.now() - start);
      results.embed_model_calls_after_restart = restarted.stats().modelCalls;
    } finally {
      await restarted.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  benchLocalModels().then(
    (numbers) => process.stdout.write(`${JSON.stringify(numbers, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
