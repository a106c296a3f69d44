import { AsyncLocalStorage } from 'node:async_hooks';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { McpAdapterError } from './mcp-adapter-error.js';
import { createSamplingLanguageModel, type Sampler } from './sampling-language-model.js';

interface HostScope {
  sample: Sampler;
  supportsTools: boolean;
}

/**
 * Routes a model call to the MCP host whose `prompt` call is running it. The agent is
 * created before any host connects and one agent may serve several hosts (HTTP), so the
 * model looks up the calling turn's host through async context instead of holding one.
 */
export class HostSampling {
  readonly #scope = new AsyncLocalStorage<HostScope | undefined>();
  readonly model: LanguageModelV3;

  constructor(options: { defaultMaxTokens?: number } = {}) {
    this.model = createSamplingLanguageModel({
      defaultMaxTokens: options.defaultMaxTokens,
      supportsTools: () => this.#scope.getStore()?.supportsTools ?? false,
      sample: (params, callOptions) => {
        const scope = this.#scope.getStore();
        if (!scope) {
          throw new McpAdapterError(
            'sampling_unavailable',
            'No model is configured and the MCP host does not support sampling: set agent.model (or --model), or use a host that offers sampling',
          );
        }
        return scope.sample(params, callOptions);
      },
    });
  }

  /**
   * The model for `createAgent({ model })` when no model is configured: the host's sampling
   * while a turn runs for a host that supports it, `fallback` (the default local model) otherwise.
   */
  resolver<M>(fallback: () => Promise<M>): () => Promise<M | LanguageModelV3> {
    return async () => (this.#scope.getStore() ? this.model : fallback());
  }

  /** Runs `fn` (one turn) with model calls going to `host`; `undefined` runs it with none. */
  run<T>(host: HostScope | undefined, fn: () => Promise<T>): Promise<T> {
    return this.#scope.run(host, fn);
  }
}

/**
 * The process's instance: the CLI passes its `model` to the agent when no model is
 * configured, and the MCP adapter routes each turn through it.
 */
export const hostSampling = new HostSampling();
