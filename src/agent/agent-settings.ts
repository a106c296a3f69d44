import type { PlaitedConfig } from '../config/schema.js';
import { defaultConfig } from '../config/default-config.js';

/**
 * The values a turn reads: limits, prompt, modes and compaction. The core takes them as
 * given; where they came from (a config file, a program) is the caller's business.
 */
export type AgentSettings = Pick<
  PlaitedConfig['agent'],
  | 'systemPrompt'
  | 'maxSteps'
  | 'temperature'
  | 'maxOutputTokens'
  | 'maxReplyBytes'
  | 'maxToolResultChars'
  | 'toolCallFormat'
  | 'allowedRoots'
  | 'sendMode'
  | 'defaultMode'
  | 'compactAt'
  | 'contextWindow'
  | 'contextSize'
  | 'compactKeepTurns'
  | 'truncateToolOutputsAfter'
>;

/** What compaction reads of the settings. */
export type CompactionSettings = Pick<AgentSettings, 'compactAt' | 'contextWindow' | 'contextSize' | 'compactKeepTurns' | 'truncateToolOutputsAfter'>;

/** The given settings over the documented defaults. */
export function agentSettings(given: Partial<AgentSettings> = {}): AgentSettings {
  const chosen = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...settingsOf(defaultConfig().agent), ...chosen };
}

/** The settings part of a parsed `agent` section. */
export function settingsOf(agent: PlaitedConfig['agent']): AgentSettings {
  const { systemPrompt, maxSteps, temperature, maxOutputTokens, maxReplyBytes, maxToolResultChars, toolCallFormat, allowedRoots, sendMode, defaultMode } = agent;
  const { compactAt, contextWindow, contextSize, compactKeepTurns, truncateToolOutputsAfter } = agent;
  return {
    systemPrompt,
    maxSteps,
    temperature,
    maxOutputTokens,
    maxReplyBytes,
    maxToolResultChars,
    toolCallFormat,
    allowedRoots,
    sendMode,
    defaultMode,
    compactAt,
    contextWindow,
    contextSize,
    compactKeepTurns,
    truncateToolOutputsAfter,
  };
}
