import type { PlaitedConfig } from '../../config/schema.js';
import { defaultConfig } from '../../config/default-config.js';
import { DEFAULT_CONTEXT_WINDOW } from '../../agent/compact-turn-history.js';
import { modelChoices, type ModelChoice } from '../../agent/session-model.js';
import type { ProtectedLayer } from '../../tools/protected-layer.js';
import { commandLayerFor } from '../sandbox/command-layer.js';
import { ModelError } from '../../model/model-error.js';
import type { ResolvedLanguageModel } from '../../model/resolve-model.js';
import type { ModelRoute } from '../../model/routed-model.js';

/**
 * What the ACP face tells a client about the agent and how it runs a client's terminal
 * commands: its own typed options, filled by the CLI (or a program) from the config.
 */
export interface AcpAgentSettings {
  /** The configured model (`provider:model`), its endpoint, and whether a key is configured: an API-key auth method is offered when a remote endpoint lacks one. */
  model: { spec?: string; baseURL?: string; hasApiKey: boolean };
  /** What a client may pick per session: the configured model first, then the named ones. */
  modelChoices: readonly ModelChoice[];
  /** The context window usage updates count against (tokens). */
  contextWindow: number;
  /** The read-only layer for commands run outside the sandbox; `null` for none. */
  commandLayer(): ProtectedLayer | null;
  /**
   * The model a session runs on (`choice`: its picked `agent.models` entry, else the configured
   * model) called through a client's endpoint (unstable `providers/set`). Absent: the face serves
   * no `providers/*` methods and advertises none.
   */
  routeModel?(choice: string | undefined, route: ModelRoute): Promise<ResolvedLanguageModel>;
}

/** The ACP settings of a parsed config. */
export function acpSettingsFromConfig(config: PlaitedConfig): AcpAgentSettings {
  const { model, baseURL, apiKey, contextWindow, contextSize } = config.agent;
  return {
    model: { ...(typeof model === 'string' ? { spec: model } : {}), ...(baseURL ? { baseURL } : {}), hasApiKey: Boolean(apiKey) },
    modelChoices: modelChoices(config),
    contextWindow: contextWindow ?? contextSize ?? DEFAULT_CONTEXT_WINDOW,
    commandLayer: () => commandLayerFor(config),
    routeModel: async (choice, route) => {
      const entry = config.agent.models.find((candidate) => candidate.name === choice);
      const spec = entry?.model ?? (typeof model === 'string' ? model : undefined);
      if (!spec) throw new ModelError('model_not_configured', 'No model is configured to route: set agent.model or pass --model');
      const { createRoutedModel } = await import('../../model/routed-model.js');
      return createRoutedModel(spec, route, config.agent);
    },
  };
}

let defaults: AcpAgentSettings | undefined;

/** The given settings, or those of the default config (what `acpAdapter.wrap` without options runs with). */
export function acpSettings(given: AcpAgentSettings | undefined): AcpAgentSettings {
  return given ?? (defaults ??= acpSettingsFromConfig(defaultConfig()));
}
