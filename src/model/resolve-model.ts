import type { LanguageModel } from 'ai';
import type { PlaitedConfig } from '../config/schema.js';
import { ModelError } from './model-error.js';
import { checkModelSpec } from './check-model-spec.js';
import { MODEL_PROVIDERS, modelProviderOf } from './model-providers.js';

/** The seed's chat model: used when no model is configured at all. */
export const DEFAULT_CHAT_MODEL = 'hf:ggml-org/functiongemma-270m-it-GGUF';

export type ResolvedLanguageModel = Exclude<LanguageModel, string>;

/**
 * `agent.model` → an AI SDK LanguageModel. Providers are imported lazily so the CLI
 * answers `initialize` before any model code is loaded.
 *  - `anthropic:`, `openai:`, `google:` the native APIs; presets (`openrouter:`, `ollama:` …) and
 *    `openai-compatible:MODEL` with `agent.baseURL` the OpenAI-compatible chat API (model-providers.ts)
 *  - `llama-cpp:PATH_OR_URI` runs a GGUF file in-process through node-llama-cpp
 *  - an AI SDK LanguageModel object from `.plaited/config.ts` is used as is
 */
export async function resolveModel(
  agentConfig: PlaitedConfig['agent'],
  options: { /** Debug diagnostics (a local model's token counters per generation). */ log?: (message: string) => void } = {},
): Promise<ResolvedLanguageModel> {
  // No model configured: the seed's default, FunctionGemma run locally (downloaded once, then cached), saying so.
  if (agentConfig.model === undefined) {
    const model = await resolveModel({ ...agentConfig, model: `llama-cpp:${DEFAULT_CHAT_MODEL}` }, options);
    const { firstRunModel } = await import('./first-run-model.js');
    return model.specificationVersion === 'v3' ? firstRunModel(model, DEFAULT_CHAT_MODEL) : model;
  }
  const spec = agentConfig.model;
  if (typeof spec !== 'string') return spec;
  checkModelSpec({ agent: { ...agentConfig, model: spec } });

  const provider = modelProviderOf(spec);
  const modelId = spec.slice(spec.indexOf(':') + 1);
  if (!provider) {
    throw new ModelError('model_spec_invalid', `Unknown model provider in "${spec}". Known: ${MODEL_PROVIDERS.join(', ')}.`);
  }

  switch (provider.kind) {
    case 'llama-cpp': {
      const { createLlamaCppLanguageModel } = await import('./llama-cpp-language-model.js');
      const { createDownloadProgressReporter } = await import('./download-progress.js');
      const { createDownloadNoticeReporter } = await import('./download-notices.js');
      // The first use of a remote model downloads it: show the progress (stderr; stdout is the protocol's), and to the turn's client.
      const toStderr = createDownloadProgressReporter(process.stderr, `Downloading ${modelId}`);
      const toClient = createDownloadNoticeReporter(`Downloading the model ${modelId}`);
      return createLlamaCppLanguageModel({
        model: modelId,
        onDownloadProgress: (progress) => {
          toStderr(progress);
          toClient(progress);
        },
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
    default: {
      const { createProviderModel } = await import('./create-provider-model.js');
      return createProviderModel(provider, modelId, agentConfig);
    }
  }
}
