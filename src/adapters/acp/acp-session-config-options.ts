import * as acp from '@agentclientprotocol/sdk';
import type { Agent, SessionInfo, SessionMode } from '../../agent/agent.js';
import { DEFAULT_MODEL_ID } from '../../agent/session-model.js';
import type { AcpAgentSettings } from './acp-agent-settings.js';

export const MODES: ReadonlyArray<acp.SessionMode & { id: SessionMode }> = [
  { id: 'default', name: 'Default', description: 'Ask before editing files or running commands' },
  { id: 'accept-edits', name: 'Accept edits', description: 'Edit files without asking; still ask before commands' },
  { id: 'plan', name: 'Plan', description: 'Read-only: explore and plan, change nothing' },
];

const DEFAULT_EFFORT = 'default';

/**
 * The session's config options (ACP `configOptions`): the mode (the same state as
 * `session/set_mode`), the model (the configured one plus `agent.models`), and the reasoning
 * effort when the chosen model declares efforts.
 */
export function sessionConfigOptions(settings: Pick<AcpAgentSettings, 'modelChoices'>, info: SessionInfo): acp.SessionConfigOption[] {
  const choices = settings.modelChoices;
  const model = choices.find((choice) => choice.id === info.options?.model) ?? choices[0]!;
  const options: acp.SessionConfigOption[] = [
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: info.mode,
      options: MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
    },
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: model.id,
      options: choices.map((choice) => ({ value: choice.id, name: choice.name, ...(choice.description ? { description: choice.description } : {}) })),
    },
  ];
  if (model.reasoningEfforts.length > 0) {
    const effort = info.options?.reasoningEffort;
    options.push({
      id: 'reasoning_effort',
      name: 'Reasoning effort',
      category: 'thought_level',
      type: 'select',
      currentValue: effort && model.reasoningEfforts.includes(effort) ? effort : DEFAULT_EFFORT,
      options: [
        { value: DEFAULT_EFFORT, name: 'Model default' },
        ...model.reasoningEfforts.map((value) => ({ value, name: value[0]!.toUpperCase() + value.slice(1) })),
      ],
    });
  }
  return options;
}

/**
 * Applies `session/set_config_option`; an unknown option or value is -32602 naming the choices.
 * Returns whether the mode changed (the caller announces `current_mode_update`).
 */
export async function setSessionConfigOption(
  agent: Agent,
  settings: Pick<AcpAgentSettings, 'modelChoices'>,
  info: SessionInfo,
  configId: string,
  value: string | boolean,
): Promise<{ info: SessionInfo; modeChanged: boolean }> {
  const current = sessionConfigOptions(settings, info).find((option) => option.id === configId);
  if (!current || current.type !== 'select') {
    throw acp.RequestError.invalidParams({ configId }, `unknown config option; available: ${sessionConfigOptions(settings, info).map((o) => o.id).join(', ')}`);
  }
  const values = current.options.flatMap((entry) => ('value' in entry ? [entry.value] : entry.options.map((o) => o.value)));
  if (typeof value !== 'string' || !values.includes(value)) {
    throw acp.RequestError.invalidParams({ configId, value }, `unknown value for ${configId}; available: ${values.join(', ')}`);
  }
  switch (configId) {
    case 'mode':
      if (value === info.mode) return { info, modeChanged: false };
      await agent.sessions.setMode(info.sessionId, value as SessionMode);
      return { info: { ...info, mode: value as SessionMode }, modeChanged: true };
    case 'model': {
      // The effort belongs to a model: a new model starts at its default.
      const updated = await agent.sessions.setOptions(info.sessionId, { model: value === DEFAULT_MODEL_ID ? '' : value, reasoningEffort: '' });
      return { info: updated, modeChanged: false };
    }
    default: {
      const updated = await agent.sessions.setOptions(info.sessionId, { reasoningEffort: value === DEFAULT_EFFORT ? '' : value });
      return { info: updated, modeChanged: false };
    }
  }
}
