import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { LLAMA_CPP_PROVIDER } from './llama-cpp-provider-id.js';
import { LocalModelError } from './local-model-error.js';
import { ModelError } from './model-error.js';
import { currentModelCallObserver } from './model-call-observer.js';
import { errorMessage } from '../errors/error-message.js';

/** How to configure a model, as every first-run message says it. */
export const CONFIGURE_A_MODEL =
  'pass --model (e.g. anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY set, openai:gpt-5-mini with OPENAI_API_KEY, ' +
  'ollama:llama3.2 for a local Ollama, or llama-cpp:/path/to/model.gguf) or set agent.model in the project\'s .plaited/config.ts (or config.json; plaited-agent init writes one)';

/** Sessions told already (bounded: a long-lived server forgets the oldest). */
const MAX_TOLD = 10_000;

/**
 * The default local model used when no model is configured, saying so: the first call of each
 * session tells its client (a notice) which model runs and how to configure another, and a
 * default model that cannot be had (offline download, node-llama-cpp not installed) fails the
 * turn with `model_not_configured` saying that no model is configured and how to set one.
 * Everything else of the model (prompt measuring once it is loaded, close) is the wrapped model's.
 */
export function firstRunModel(model: LanguageModelV3, defaultSpec: string): LanguageModelV3 {
  const told = new Set<string>();
  // Until the model is had, measuring a prompt (which loads it) is left to the first call: there the download is told and its failure explained.
  let ready = false;
  const doStream = async (call: LanguageModelV3CallOptions) => {
    const sessionId = String(call.providerOptions?.[LLAMA_CPP_PROVIDER]?.sessionId ?? '');
    if (!told.has(sessionId)) {
      if (told.size >= MAX_TOLD) told.clear();
      told.add(sessionId);
      currentModelCallObserver()?.({
        level: 'info',
        message: `No model configured: using the default local model ${defaultSpec} (small, for trying things out; downloaded once). For another, ${CONFIGURE_A_MODEL}.`,
      });
    }
    try {
      const result = await model.doStream(call);
      ready = true;
      return result;
    } catch (error) {
      if (!unavailable(error)) throw error;
      throw new ModelError(
        'model_not_configured',
        `No model configured, and the default local model ${defaultSpec} is not available (${errorMessage(error)}). To configure one, ${CONFIGURE_A_MODEL}.`,
        { cause: error },
      );
    }
  };
  return new Proxy(model, {
    get(target, property) {
      if (property === 'doStream') return doStream;
      if (property === 'measurePrompt' && !ready) return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function unavailable(error: unknown): boolean {
  if (LocalModelError.isInstance(error)) return error.code === 'model_download_failed' || error.code === 'model_file_not_found' || error.code === 'local_runtime_missing';
  return ModelError.isInstance(error) && error.code === 'model_unavailable';
}
