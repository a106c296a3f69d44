import picomatch from 'picomatch';
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

/** A tool-name glob (`mcp__github__*`, `mcp__{fs,git}__read_*`); tool names hold no `/`, so `*` spans any run. */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!/[*?[{]/.test(pattern)) return name === pattern;
  return picomatch.isMatch(name, pattern, { dot: true });
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

  /**
   * `decide`, plus what the call writes: a write to a protected file (config, hooks,
   * see `src/tools/protected-paths.ts`) is a command, so it asks in every mode, over
   * allow lists and remembered "always allow" answers alike.
   */
  decideCall(tool: AnyTool, mode: SessionMode, memory: PermissionMemory, protectedWrite: boolean): PolicyDecision {
    const decision = this.decide(tool, mode, memory);
    if (!protectedWrite || decision.action !== 'run' || tool.risk === 'read') return decision;
    return { action: 'ask' };
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
