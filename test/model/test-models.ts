import { existsSync } from 'node:fs';

/**
 * The GGUF files tests need, from the environment (.ci/run sets them to ../shared/models).
 * Missing means failing loudly, never skipping.
 */
export function requireTestModel(variable: 'PLAITED_TEST_CHAT_MODEL' | 'PLAITED_TEST_EMBED_MODEL'): string {
  const path = process.env[variable];
  if (!path) {
    throw new Error(
      `${variable} is not set: point it at the test GGUF model (see ../shared/models/README.md, e.g. ` +
        `${variable === 'PLAITED_TEST_CHAT_MODEL' ? 'llama-2-tiny-random.gguf' : 'glove-6B-100d-bert.gguf'}).`,
    );
  }
  if (!existsSync(path)) throw new Error(`${variable}=${path}, but that file does not exist.`);
  return path;
}
