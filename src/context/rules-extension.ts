import { basename, dirname, join } from 'node:path';
import type { AgentExtension, ToolCallSummary, TurnContext } from '../agent/agent-extension.js';
import { userConfigDir } from '../config/user-config-dir.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import type { RulesConfig } from './context-config.js';
import type { CachedFile } from './mtime-cache.js';
import { defaultRulesFile, Rules } from './rules.js';
import { realOrResolved } from './real-or-resolved.js';

/**
 * Rules in the agent. The system prompt carries the user's home-level AGENTS.md, the AGENTS.md of
 * the folders from the git root down to the project, the root AGENTS.md, those of each additional
 * directory (its parents' from its git root, then its own), the linked files
 * that match the turn's intent, and any nested AGENTS.md already loaded this turn.
 * When a tool touches a file, the nested AGENTS.md files on its path are loaded for the
 * rest of the turn: they are appended to that tool's result (the model reads them right
 * after the call that made them relevant) and included by `systemPrompt` from then on.
 * The core runs `onToolResult` before it converts the result into the model's tool message.
 */
export interface RulesExtension extends AgentExtension {
  rules(cwd: string): Rules;
  /** The nested rules files loaded so far in the session's current turn. */
  nestedLoaded(sessionId: string): CachedFile[];
  /** Re-reads every rules file and re-indexes links. */
  refresh(): Promise<void>;
}

export function createRulesExtension(options: {
  config: RulesConfig;
  index?: SearchIndex;
  warn?: (message: string) => void;
  /** `agent.allowedRoots`: folders outside the project a rules file may be in (as for the file tools). */
  allowedRoots?: readonly string[];
  /** The user's own rules for every project (default `AGENTS.md` in the user's plaited-agent folder, `~/.config/plaited-agent`). */
  homeRulesFile?: string;
  /** Where the walk to the git root stops (default `$HOME`). */
  home?: string;
}): RulesExtension {
  const { config, index, warn, allowedRoots, home } = options;
  const homeFile = options.homeRulesFile ?? join(userConfigDir(), 'AGENTS.md');
  // The user's own file, which the user may link anywhere (a dotfiles checkout); never the agent's state.
  const homeRules = new Rules({ cwd: dirname(homeFile), file: basename(homeFile), allowedRoots: ['/'], ...(warn ? { warn } : {}) });
  const byCwd = new Map<string, Rules>();
  const nested = new Map<string, Map<string, CachedFile>>();
  const toldCut = new Set<string>();

  const rules = (cwd: string): Rules => {
    let found = byCwd.get(cwd);
    if (!found) {
      found = new Rules({ cwd, file: config.file, index, maxFileBytes: Math.max(1024 * 1024, config.maxPromptChars * 4), allowedRoots, ...(home ? { gitRoot: { home } } : {}), ...(warn ? { warn } : {}) });
      byCwd.set(cwd, found);
    }
    return found;
  };

  return {
    name: 'rules',
    rules,
    nestedLoaded: (sessionId) => [...(nested.get(sessionId)?.values() ?? [])],
    async refresh() {
      await Promise.all([homeRules, ...byCwd.values()].map((found) => found.refresh()));
    },
    async systemPrompt(context: TurnContext) {
      const project = rules(context.cwd);
      const [homeRoot, parents, root] = await Promise.all([homeRules.root(), project.parents(), project.root()]);
      const sections: string[] = [];
      // The budget goes to the project's own file first, then its parents nearest first, then the
      // home file, then each additional directory's alike, then nested and linked files; the model
      // reads them from the most general (home) to the nearest, which wins.
      const priority: number[] = [];
      const seen = new Set<string>();
      // One file reachable twice (`sub/AGENTS.md` a link to the root one, a link to `CLAUDE.md` that
      // `AGENTS.md` itself links to) is sent once: the real path decides.
      const add = async (file: CachedFile, from: Rules = project, label?: string): Promise<number | undefined> => {
        const real = await realOrResolved(file.path);
        if (seen.has(real)) return undefined;
        seen.add(real);
        return sections.push(from.section(file, label)) - 1;
      };
      /** A folder's files in reading order (its parents from the git root down, then its own); returns its budget order (its own, then the parents nearest first). */
      const addChain = async (from: Rules, parentFiles: CachedFile[], own: CachedFile | undefined): Promise<number[]> => {
        const at: Array<number | undefined> = [];
        for (const file of parentFiles) at.push(await add(file, from));
        const ownAt = own ? await add(own, from) : undefined;
        return [ownAt, ...at.reverse()].filter((index): index is number => index !== undefined);
      };
      const homeAt = homeRoot ? await add(homeRoot, homeRules, homeRoot.path) : undefined;
      priority.push(...(await addChain(project, parents, root)));
      if (homeAt !== undefined) priority.push(homeAt);
      // Each additional workspace root brings its rules as the project does (one file reached from both is sent once).
      for (const dir of context.additionalDirectories ?? []) {
        const extra = rules(dir);
        const [extraParents, extraRoot] = await Promise.all([extra.parents(), extra.root()]);
        priority.push(...(await addChain(extra, extraParents, extraRoot)));
      }
      const firstOthers = sections.length;
      for (const file of nested.get(context.sessionId)?.values() ?? []) await add(file);
      for (const file of await project.linkedFor(context.intent, { signal: context.signal })) await add(file);
      if (!sections.length) return undefined;
      for (let at = firstOthers; at < sections.length; at++) priority.push(at);
      const text = fitSections(sections, config.maxPromptChars, priority);
      const whole = sections.join('\n\n').length;
      if (text.length < whole && warn) {
        // The model reads the cut marker; the user, who wrote the rules, is told once per size.
        const key = `${context.cwd}:${whole}`;
        if (!toldCut.has(key)) {
          toldCut.add(key);
          warn(`the rules sent to the model for ${context.cwd} are cut at rules.maxPromptChars (${config.maxPromptChars} of ${whole} characters): the model does not see the rest (the project's ${basename(config.file ?? defaultRulesFile(context.cwd))} comes first, then those of its parent folders nearest first, your home-level ${homeFile}, then nested and linked rules files); shorten them or raise rules.maxPromptChars`);
        }
      }
      return text;
    },
    async onToolResult(context: TurnContext, call: ToolCallSummary) {
      // A path under an additional root gets that root's nested rules.
      const rootOf = (path: string) => (context.additionalDirectories ?? []).find((dir) => path === dir || path.startsWith(`${dir}/`)) ?? context.cwd;
      const loaded = nested.get(context.sessionId) ?? new Map<string, CachedFile>();
      nested.set(context.sessionId, loaded);
      const paths = [...call.locations, ...(call.result.locations ?? [])].map((location) => location.path);
      const fresh: CachedFile[] = [];
      for (const path of new Set(paths)) {
        const owner = rules(rootOf(path));
        const rootReal = await realOrResolved(owner.rootFile);
        for (const file of await owner.nestedFor(path)) {
          const real = await realOrResolved(file.path);
          // A nested file that is the root one (a symlink to it) is in the system prompt already.
          if (loaded.has(real) || real === rootReal) continue;
          loaded.set(real, file);
          fresh.push(file);
        }
      }
      if (fresh.length) {
        // The hook has no return value; the result object is the one the model will read.
        call.result.content.push({
          type: 'text',
          text: `\n[Rules for the files this call touched; follow them for the rest of this task]\n${fresh.map((file) => rules(rootOf(file.path)).section(file)).join('\n')}`,
        });
      }
    },
    onTurnEnd(context: TurnContext) {
      nested.delete(context.sessionId);
    },
    onSessionClose(sessionId: string) {
      nested.delete(sessionId);
    },
  };
}

/**
 * Joins sections in their order, keeping them by `priority` (indexes, most important first;
 * default the order itself): the one that overflows is cut, the rest dropped.
 */
export function fitSections(sections: readonly string[], maxChars: number, priority: readonly number[] = sections.map((_, at) => at)): string {
  const kept = new Map<number, string>();
  let used = 0;
  for (const at of priority) {
    const section = sections[at]!;
    const gap = kept.size ? 2 : 0;
    if (used + gap + section.length <= maxChars) {
      kept.set(at, section);
      used += gap + section.length;
      continue;
    }
    const room = maxChars - used - gap - 40;
    if (room > 200) kept.set(at, `${section.slice(0, room)}\n[rules truncated at ${maxChars} chars]`);
    break;
  }
  return sections.flatMap((_, at) => (kept.has(at) ? [kept.get(at)!] : [])).join('\n\n');
}
