import type { LanguageModel } from 'ai';
import type { PlaitedConfig } from '../config/schema.js';
import { ModelError } from './model-error.js';
import { checkModelSpec } from './check-model-spec.js';

/** The seed's chat model: used when no model is configured at all. */
export const DEFAULT_CHAT_MODEL = 'hf:ggml-org/functiongemma-270m-it-GGUF';

export type ResolvedLanguageModel = Exclude<LanguageModel, string>;

/**
 * `agent.model` → an AI SDK LanguageModel. Providers are imported lazily so the CLI
 * answers `initialize` before any model code is loaded.
 *  - `openai-compatible:MODEL` with `agent.baseURL` (Ollama, vLLM, llama.cpp server, LM Studio, OpenAI)
 *  - `llama-cpp:PATH_OR_URI` runs a GGUF file in-process through node-llama-cpp
 *  - an AI SDK LanguageModel object from `.plaited/config.ts` is used as is
 */
export async function resolveModel(
  agentConfig: PlaitedConfig['agent'],
  options: { /** Debug diagnostics (a local model's token counters per generation). */ log?: (message: string) => void } = {},
): Promise<ResolvedLanguageModel> {
  // No model configured: the seed's default, FunctionGemma run locally (downloaded once, then cached).
  const spec = agentConfig.model ?? `llama-cpp:${DEFAULT_CHAT_MODEL}`;
  if (typeof spec !== 'string') return spec;
  checkModelSpec({ agent: { ...agentConfig, model: spec } });

  const colon = spec.indexOf(':');
  const provider = colon === -1 ? spec : spec.slice(0, colon);
  const modelId = colon === -1 ? '' : spec.slice(colon + 1);
  if (!modelId) {
    throw new ModelError('model_spec_invalid', `Model "${spec}" must look like PROVIDER:MODEL, e.g. openai-compatible:gpt-4o-mini`);
  }

  switch (provider) {
    case 'openai-compatible': {
      if (!agentConfig.baseURL) {
        throw new ModelError(
          'model_spec_invalid',
          `Model "${spec}" needs a base URL: set agent.baseURL or pass --base-url (e.g. http://127.0.0.1:11434/v1)`,
        );
      }
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const { createModelFetch } = await import('./model-fetch.js');
      const { processModelCallLimiter } = await import('./model-call-limiter.js');
      const provider = createOpenAICompatible({
        // At most agent.maxConcurrentModelCalls connections at once, and a stale keep-alive socket retried once.
        fetch: createModelFetch(processModelCallLimiter(agentConfig.maxConcurrentModelCalls)),
        name: 'openai-compatible',
        baseURL: agentConfig.baseURL,
        apiKey: agentConfig.apiKey ?? process.env.PLAITED_API_KEY,
        headers: agentConfig.headers,
        includeUsage: true,
      });
      return provider.chatModel(modelId);
    }
    case 'llama-cpp': {
      const { createLlamaCppLanguageModel } = await import('./llama-cpp-language-model.js');
      const { createDownloadProgressReporter } = await import('./download-progress.js');
      return createLlamaCppLanguageModel({
        model: modelId,
        // The first use of a remote model downloads it: show the progress (stderr; stdout is the protocol's).
        onDownloadProgress: createDownloadProgressReporter(process.stderr, `Downloading ${modelId}`),
        threads: agentConfig.threads,
        contextSize: agentConfig.contextSize,
        chatFormat: agentConfig.chatFormat,
        maxSequences: agentConfig.localModel.sequences,
        residentSequences: agentConfig.localModel.residentSequences,
        onPrefill: options.log
          ? (p) =>
              options.log!(
                `llama-cpp prompt${p.sessionId ? ` (session ${p.sessionId})` : ''}: ${p.promptTokens} tokens, ${p.reusedTokens} reused, ` +
                  `evaluating ${Math.max(0, p.promptTokens - p.reusedTokens)}`,
              )
          : undefined,
        onGeneration: options.log
          ? (g) =>
              options.log!(
                `llama-cpp generation${g.sessionId ? ` (session ${g.sessionId})` : ''}: prompt ${g.promptTokens} tokens ` +
                  `(${g.reusedTokens} reused, ${g.evaluatedTokens} evaluated), ${g.outputTokens} generated, finish ${g.finishReason}`,
              )
          : undefined,
      });
    }
    default:
      throw new ModelError(
        'model_spec_invalid',
        `Unknown model provider "${provider}" in "${spec}". Known: openai-compatible, llama-cpp.`,
      );
  }
}
