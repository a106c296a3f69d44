import { isAbsolute, relative } from 'node:path';
import picomatch from 'picomatch';
import type { AnyTool } from '../contracts/tool.js';
import { sameShellPart, splitShellCommand, type ShellPart } from './split-shell-command.js';

/**
 * A permission rule as the user writes it, in config `tools.allow`/`tools.deny` and in the
 * rules file: a tool-name glob, alone (the whole tool, today's meaning) or with a scope in
 * parentheses — `bash(npm test)` one exact command, `bash(npm test:*)` commands starting with
 * those words, `write_file(src/**)` paths (globs, relative to the project), for file tools,
 * `web_fetch(domain:example.com)` URLs of that host.
 */
export interface PermissionRule {
  text: string;
  tool: string;
  scope?: string;
}

/** How the rules relate to one call: all of it covered, part of it, none, or not judged. */
export type RuleCoverage = 'all' | 'some' | 'none' | 'unknown';

export function parsePermissionRule(text: string): PermissionRule {
  const open = text.indexOf('(');
  if (open <= 0 || !text.endsWith(')')) return { text, tool: text };
  return { text, tool: text.slice(0, open), scope: text.slice(open + 1, -1) };
}

/** A tool-name glob (`mcp__github__*`, `mcp__{fs,git}__read_*`); tool names hold no `/`, so `*` spans any run. */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!/[*?[{]/.test(pattern)) return name === pattern;
  return picomatch.isMatch(name, pattern, { dot: true });
}

/** The command a call runs, when the tool is `bash`. */
export function commandOf(tool: AnyTool, args: unknown): string | undefined {
  if (tool.name !== 'bash') return undefined;
  const command = (args as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : undefined;
}

/** The host a `web_fetch` call reaches (`example.com`), as `domain:` rules name it. */
export function hostOf(tool: AnyTool, args: unknown): string | undefined {
  if (tool.name !== 'web_fetch') return undefined;
  const url = (args as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** The paths a file tool names, relative to the project (absolute outside it). */
export function pathsOf(tool: AnyTool, args: unknown, cwd: string): string[] | undefined {
  if (!tool.locations) return undefined;
  try {
    return tool.locations(args, cwd).map((location) => projectPath(location.path, cwd));
  } catch {
    return undefined;
  }
}

export function projectPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/**
 * Which part of the call the rules cover. A `bash` command is split into its simple commands
 * (`&&`, `;`, `|`, subshells): each must be covered by some rule; a line the splitter cannot
 * follow is `unknown`. A scope on a tool that has none (an MCP tool) covers nothing. A path glob
 * written relative (`**`, `src/**`) names paths of the project: for `allow` rules it covers no
 * path outside it (an additional directory's), for `deny` rules it errs on the side of refusing.
 */
export function ruleCoverage(rules: readonly PermissionRule[], tool: AnyTool, args: unknown, cwd: string, effect: 'allow' | 'deny'): RuleCoverage {
  const applicable = rules.filter((rule) => matchesPattern(tool.name, rule.tool));
  if (applicable.length === 0) return 'none';
  if (applicable.some((rule) => rule.scope === undefined)) return 'all';
  const command = commandOf(tool, args);
  if (command !== undefined) {
    const parts = splitShellCommand(command);
    if (!parts) return 'unknown';
    return tally(parts.map((part) => applicable.some((rule) => commandScopeCovers(rule.scope!, part))));
  }
  const host = hostOf(tool, args);
  if (host) return applicable.some((rule) => rule.scope === `domain:${host}`) ? 'all' : 'none';
  const paths = pathsOf(tool, args, cwd);
  if (paths && paths.length > 0) return tally(paths.map((path) => applicable.some((rule) => pathScopeCovers(rule.scope!, path, effect))));
  return 'none';
}

/** `path` is relative when inside the project (see {@link projectPath}), absolute outside it. */
function pathScopeCovers(scope: string, path: string, effect: 'allow' | 'deny'): boolean {
  if (effect === 'allow' && isAbsolute(path) && !isAbsolute(scope)) return false;
  return picomatch.isMatch(path, scope, { dot: true });
}

function tally(covered: boolean[]): RuleCoverage {
  if (covered.every(Boolean)) return 'all';
  return covered.some(Boolean) ? 'some' : 'none';
}

/**
 * `npm test:*` covers a command whose words start with `npm test` and that writes no file
 * through a redirection; any other scope covers the very commands it spells (with the same
 * redirections).
 */
function commandScopeCovers(scope: string, part: ShellPart): boolean {
  if (scope.endsWith(':*')) {
    const prefix = splitShellCommand(scope.slice(0, -2));
    if (prefix?.length !== 1 || prefix[0]!.redirects.length > 0 || part.writesFile) return false;
    const words = prefix[0]!.words;
    return words.length <= part.words.length && words.every((word, index) => part.words[index] === word);
  }
  return (splitShellCommand(scope) ?? []).some((spelled) => sameShellPart(spelled, part));
}

/** A path written as a glob that matches only itself (`app/[id].tsx`). */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, (char) => `\\${char}`);
}
