import { availableParallelism } from 'node:os';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { LocalModelError } from './local-model-error.js';
import { RefCountedCache } from './ref-counted-cache.js';
import { errorMessage } from '../errors/error-message.js';
import { ownPackageJson } from '../config/own-package-json.js';

/**
 * The process-wide llama.cpp binding and the models loaded through it. node-llama-cpp is imported
 * lazily here (and only here) so that starting the CLI never pays for it. One loaded model per
 * file, however many providers or embedders use it.
 */

type NodeLlamaCpp = typeof import('node-llama-cpp');

let moduleLoad: Promise<NodeLlamaCpp> | undefined;
let llamaLoad: Promise<Llama> | undefined;

/**
 * The version the local models are built and tested against: package.json's optional peer,
 * read from there (node-llama-cpp's own package.json is the one thing missing when this is
 * needed, for the install command); `undefined` if the package.json cannot be read.
 */
export function nodeLlamaCppVersion(): string | undefined {
  return ownPackageJson()?.peerDependencies['node-llama-cpp'];
}

/**
 * node-llama-cpp, an optional peer dependency (about 600 MB of llama.cpp builds that users of
 * remote models do without): missing, a local model or the local embedder fails naming the
 * install command (the registry's discovery then falls back to keyword search).
 */
export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  moduleLoad ??= import('node-llama-cpp').catch((cause: unknown) => {
    moduleLoad = undefined;
    const code = (cause as { code?: unknown } | undefined)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !/node-llama-cpp/.test(errorMessage(cause))) throw cause;
    throw new LocalModelError(
      'local_runtime_missing',
      'node-llama-cpp',
      'Local models (llama-cpp:) and the local embedder need node-llama-cpp, which is not installed: ' +
        `run \`npm install ${installSpec()}\` where plaited-agent is installed (add -g for a global install), ` +
        'or use a remote model (e.g. --model anthropic:claude-sonnet-4-5).',
      { cause },
    );
  });
  return moduleLoad;
}

/** `node-llama-cpp@<the peer version>`, or the bare name when the version cannot be read. */
function installSpec(): string {
  const version = nodeLlamaCppVersion();
  return version === undefined ? 'node-llama-cpp' : `node-llama-cpp@${version}`;
}

/**
 * CPU only, and llama.cpp's own logging silenced: the core never logs, and on stdio adapters
 * stdout belongs to the protocol. Failures surface as errors instead.
 */
export function getSharedLlama(): Promise<Llama> {
  llamaLoad ??= loadNodeLlamaCpp().then(({ getLlama, LlamaLogLevel }) =>
    getLlama({ gpu: false, logLevel: LlamaLogLevel.error, logger: () => {}, progressLogs: false }),
  );
  llamaLoad.catch(() => {
    llamaLoad = undefined;
  });
  return llamaLoad;
}

const models = new RefCountedCache<LlamaModel>((model) => model.dispose());

/** The loaded model for a local file; call release() when done (the last release frees it). */
export async function acquireSharedModel(modelPath: string): Promise<{ model: LlamaModel; release: () => Promise<void> }> {
  const { value, release } = await models.acquire(modelPath, async () => {
    const llama = await getSharedLlama();
    try {
      return await llama.loadModel({ modelPath });
    } catch (cause) {
      throw new LocalModelError(
        'model_load_failed',
        modelPath,
        `Could not load the GGUF model ${modelPath}: ${errorMessage(cause)}. If the file is damaged or cut short (an interrupted download), move it aside and fetch it again (plaited-agent models pull SPEC), or point the model at another GGUF file.`,
        { cause },
      );
    }
  });
  return { model: value, release };
}

/**
 * Half the logical cores, at least one: about the physical cores on SMT machines (llama.cpp's own
 * advice), with room left for the agent, its tools and other processes. llama.cpp's threads wait
 * for each other at every step, so one thread that the OS deschedules stalls them all: on a busy
 * 2-core machine 2 threads generated ~100x slower than 1 (`npm run bench`, "local models").
 */
export function defaultThreads(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}
