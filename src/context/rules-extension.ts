import { realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AgentExtension, ToolCallSummary, TurnContext } from '../agent/agent-extension.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import type { RulesConfig } from './context-config.js';
import type { CachedFile } from './mtime-cache.js';
import { defaultRulesFile, Rules } from './rules.js';

/**
 * Rules in the agent. The system prompt carries the root AGENTS.md, the linked files
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
}): RulesExtension {
  const { config, index, warn, allowedRoots } = options;
  const byCwd = new Map<string, Rules>();
  const nested = new Map<string, Map<string, CachedFile>>();
  const toldCut = new Set<string>();

  const rules = (cwd: string): Rules => {
    let found = byCwd.get(cwd);
    if (!found) {
      found = new Rules({ cwd, file: config.file, index, maxFileBytes: Math.max(1024 * 1024, config.maxPromptChars * 4), allowedRoots, ...(warn ? { warn } : {}) });
      byCwd.set(cwd, found);
    }
    return found;
  };

  return {
    name: 'rules',
    rules,
    nestedLoaded: (sessionId) => [...(nested.get(sessionId)?.values() ?? [])],
    async refresh() {
      await Promise.all([...byCwd.values()].map((found) => found.refresh()));
    },
    async systemPrompt(context: TurnContext) {
      const project = rules(context.cwd);
      const root = await project.root();
      const sections: string[] = [];
      const seen = new Set<string>();
      // One file reachable twice (`sub/AGENTS.md` a link to the root one, a link to `CLAUDE.md` that
      // `AGENTS.md` itself links to) is sent once: the real path decides.
      const add = async (file: CachedFile, from: Rules = project): Promise<void> => {
        const real = await realOf(file.path);
        if (seen.has(real)) return;
        seen.add(real);
        sections.push(from.section(file));
      };
      if (root) await add(root);
      // Each additional workspace root brings its own rules file.
      for (const dir of context.additionalDirectories ?? []) {
        const extra = rules(dir);
        const extraRoot = await extra.root();
        if (extraRoot) await add(extraRoot, extra);
      }
      for (const file of nested.get(context.sessionId)?.values() ?? []) await add(file);
      for (const file of await project.linkedFor(context.intent, { signal: context.signal })) await add(file);
      if (!sections.length) return undefined;
      const text = fitSections(sections, config.maxPromptChars);
      const whole = sections.join('\n\n').length;
      if (text.length < whole && warn) {
        // The model reads the cut marker; the user, who wrote the rules, is told once per size.
        const key = `${context.cwd}:${whole}`;
        if (!toldCut.has(key)) {
          toldCut.add(key);
          warn(`the rules sent to the model for ${context.cwd} are cut at rules.maxPromptChars (${config.maxPromptChars} of ${whole} characters): the model does not see the rest (the root ${basename(config.file ?? defaultRulesFile(context.cwd))} comes first, then nested and linked rules files); shorten them or raise rules.maxPromptChars`);
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
        const rootReal = await realOf(owner.rootFile);
        for (const file of await owner.nestedFor(path)) {
          const real = await realOf(file.path);
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

/** The real path of a rules file (the path itself when it cannot be resolved). */
function realOf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/** Joins sections in priority order, cutting the last one that overflows and dropping the rest. */
export function fitSections(sections: readonly string[], maxChars: number): string {
  let text = '';
  for (const section of sections) {
    const next = text ? `${text}\n\n${section}` : section;
    if (next.length <= maxChars) {
      text = next;
      continue;
    }
    const room = maxChars - text.length - (text ? 2 : 0) - 40;
    if (room > 200) text = `${text ? `${text}\n\n` : ''}${section.slice(0, room)}\n[rules truncated at ${maxChars} chars]`;
    break;
  }
  return text;
}
