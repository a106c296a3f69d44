import { ensureTestEmbedder } from '../../bench/test-models/test-model-files.js';

/** Builds (once) the GloVe test embedder the evaluations rank with; see test/global-setup.ts. */
export default function setup(): void {
  ensureTestEmbedder((line) => void process.stderr.write(`[eval-setup] ${line}\n`));
}
