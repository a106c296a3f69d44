import type { ToolPolicyConfig } from '../config/schema.js';
import type { AnyTool } from '../tools/tool.js';
import type { SessionMode } from './agent.js';

/** What the loop does with a tool call before running it. */
export type PolicyDecision =
  | { action: 'run' }
  | { action: 'ask' }
  | { action: 'refuse'; reason: string };

/** Remembered "always" answers, per session. */
export interface PermissionMemory {
  allowAlways: Set<string>;
  rejectAlways: Set<string>;
}

/** `*` matches any run of characters; everything else is literal. */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}

/**
 * Source gates, then deny, then allow lists (deny wins), then risk and mode:
 * `read` runs; `write` asks unless the mode is accept-edits; `external` asks; plan mode refuses both.
 */
export class ToolPolicy {
  constructor(private readonly config: ToolPolicyConfig) {}

  /** Whether the tool may be offered to the model at all in this mode. */
  offers(tool: AnyTool, mode: SessionMode): boolean {
    if (!this.config.sources[tool.source]) return false;
    if (this.config.deny.some((pattern) => matchesPattern(tool.name, pattern))) return false;
    if (mode === 'plan' && tool.risk !== 'read' && !this.isAllowed(tool.name)) return false;
    return true;
  }

  decide(tool: AnyTool, mode: SessionMode, memory: PermissionMemory): PolicyDecision {
    if (!this.config.sources[tool.source]) {
      return { action: 'refuse', reason: `tools from source "${tool.source}" are disabled by policy` };
    }
    if (this.config.deny.some((pattern) => matchesPattern(tool.name, pattern))) {
      return { action: 'refuse', reason: `tool "${tool.name}" is denied by policy` };
    }
    if (tool.risk === 'read' || this.isAllowed(tool.name)) return { action: 'run' };
    if (mode === 'plan') {
      return { action: 'refuse', reason: `plan mode allows only read-only tools; "${tool.name}" would change something` };
    }
    if (memory.rejectAlways.has(tool.name)) {
      return { action: 'refuse', reason: `the user rejected "${tool.name}" for this session` };
    }
    if (memory.allowAlways.has(tool.name)) return { action: 'run' };
    if (tool.risk === 'write' && mode === 'accept-edits') return { action: 'run' };
    return { action: 'ask' };
  }

  private isAllowed(name: string): boolean {
    return this.config.allow.some((pattern) => matchesPattern(name, pattern));
  }
}
