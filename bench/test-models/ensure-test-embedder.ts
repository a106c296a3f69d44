/**
 * `node dist/bench/test-models/ensure-test-embedder.js`: builds (once) and verifies the GloVe
 * test embedder, then prints its path on stdout.
 */
import { pathToFileURL } from 'node:url';
import { ensureTestEmbedder } from './test-model-files.js';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`${ensureTestEmbedder((line) => process.stderr.write(`${line}\n`))}\n`);
  } catch (error) {
    process.stderr.write(`ensure-test-embedder: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
