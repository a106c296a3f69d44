import type { ToolPolicyConfig } from '../config/schema.js';
import type { PermissionRuleEntry, PermissionRuleStore } from '../storage/permission-rule-file.js';
import type { AnyTool, ToolOrigin } from '../contracts/tool.js';
import type { SessionMode } from './agent.js';
import { matchesPattern, parsePermissionRule, ruleCoverage, type PermissionRule } from './permission-rule.js';

export { matchesPattern };

/** What the loop does with a tool call before running it. */
export type PolicyDecision =
  | { action: 'run' }
  | { action: 'ask'; why?: string }
  | { action: 'refuse'; reason: string };

/** Rules remembered for this session only ("Allow … for this session"). */
export interface PermissionMemory {
  rules: PermissionRuleEntry[];
}

/** The remembered rules a turn sees: the session's, and the project's store (keyed by the session's folder). */
export interface PermissionContext {
  session: PermissionMemory;
  project: PermissionRuleStore;
}

/** One call as the policy judges it. */
export interface PolicyCall {
  tool: AnyTool;
  args: unknown;
  cwd: string;
}

/**
 * Source gates, then deny rules (config, then remembered), then plan mode (read-only whatever
 * the rules say), then allow rules (config and remembered, together: every part of a command
 * must be covered), then risk and mode: `read` runs; `write` asks unless the mode is
 * accept-edits; `external` asks. See `permission-rule.ts` for what a rule covers.
 */
export class ToolPolicy {
  private readonly allow: PermissionRule[];
  private readonly deny: PermissionRule[];
  /** The rules as given (what `/permissions` lists as the configured ones). */
  readonly rules: ToolPolicyConfig;

  constructor(private readonly config: ToolPolicyConfig) {
    this.rules = config;
    this.allow = config.allow.map(parsePermissionRule);
    this.deny = config.deny.map(parsePermissionRule);
  }

  /** Whether the tool may be offered to the model at all in this mode. */
  offers(tool: AnyTool, mode: SessionMode): boolean {
    if (!this.config.sources[tool.source]) return false;
    if (this.deny.some((rule) => rule.scope === undefined && matchesPattern(tool.name, rule.tool))) return false;
    return mode !== 'plan' || tool.risk === 'read';
  }

  /**
   * `decide`, plus what the call writes: a write to a protected file (config, hooks,
   * see `src/tools/protected-paths.ts`) is a command, so it asks in every mode, over
   * allow lists and remembered "always allow" answers alike.
   */
  decideCall(call: PolicyCall, mode: SessionMode, remembered: readonly PermissionRuleEntry[], protectedWrite: boolean): PolicyDecision {
    const decision = this.decide(call, mode, remembered);
    if (!protectedWrite || decision.action !== 'run' || call.tool.risk === 'read') return decision;
    return { action: 'ask' };
  }

  decide(call: PolicyCall, mode: SessionMode, remembered: readonly PermissionRuleEntry[]): PolicyDecision {
    const { tool, args, cwd } = call;
    if (!this.config.sources[tool.source]) {
      return { action: 'refuse', reason: `tools from source "${tool.source}" are disabled by policy` };
    }
    const configDeny = ruleCoverage(this.deny, tool, args, cwd, 'deny');
    if (configDeny === 'all' || configDeny === 'some') return { action: 'refuse', reason: `tool "${tool.name}" is denied by policy` };
    if (tool.risk === 'read') return { action: 'run' };
    if (mode === 'plan') {
      return { action: 'refuse', reason: `plan mode allows only read-only tools; "${tool.name}" would change something` };
    }
    const { mine, others } = byOrigin(remembered, tool);
    const userDeny = ruleCoverage(rulesOf(mine, 'deny'), tool, args, cwd, 'deny');
    if (userDeny === 'all' || userDeny === 'some') {
      return { action: 'refuse', reason: `the user rejected this "${tool.name}" call with an "always reject" rule (see /permissions)` };
    }
    // A deny rule that cannot be checked against this call (a command line it cannot split) never lets it run unasked.
    const unsure = configDeny === 'unknown' || userDeny === 'unknown';
    if (!unsure && ruleCoverage([...this.allow, ...rulesOf(mine, 'allow')], tool, args, cwd, 'allow') === 'all') return { action: 'run' };
    if (!unsure && tool.risk === 'write' && mode === 'accept-edits') return { action: 'run' };
    const other = others.find((entry) => entry.effect === 'allow' && ruleCoverage(rulesOf([entry], 'allow'), tool, args, cwd, 'allow') === 'all');
    return other?.server ? { action: 'ask', why: anotherServer(tool, other.server) } : { action: 'ask' };
  }
}

/**
 * Remembered rules that apply to this tool (`mine`: made for its server, or for no server in
 * particular: hand-written, or stored before rules named one) and those made for another server
 * that has the same name (`others`).
 */
function byOrigin(entries: readonly PermissionRuleEntry[], tool: AnyTool): { mine: PermissionRuleEntry[]; others: PermissionRuleEntry[] } {
  const mine: PermissionRuleEntry[] = [];
  const others: PermissionRuleEntry[] = [];
  for (const entry of entries) (entry.server === undefined || entry.server.key === tool.origin?.key ? mine : others).push(entry);
  return { mine, others };
}

function anotherServer(tool: AnyTool, was: ToolOrigin): string {
  const now = tool.origin ? `it now runs ${tool.origin.label}` : 'it is not an MCP server now';
  return `Asked again: the server named ${was.name} is not the one your earlier answer was for (that one ran ${was.label}; ${now}).`;
}

function rulesOf(entries: readonly PermissionRuleEntry[], effect: 'allow' | 'deny'): PermissionRule[] {
  return entries.filter((entry) => entry.effect === effect).map((entry) => parsePermissionRule(entry.rule));
}
