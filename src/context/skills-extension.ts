import type { AgentExtension, TurnContext } from '../agent/agent-extension.js';
import type { SkillsConfig } from './context-config.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import type { AnyTool } from '../contracts/tool.js';
import { createReadSkillTool } from './read-skill-tool.js';
import { describeSkill, SkillCatalog } from './skill-catalog.js';
import { resolveRoot } from './skills.js';
import { watchSkillRoots } from './watch-skill-roots.js';
import type { AgentOutput } from '../contracts/agent-output.js';

/**
 * Skills in the agent: the catalog goes into the system prompt, `read_skill` is offered
 * while any skill is loaded, the skills are announced as slash commands when a session
 * starts, and a prompt that begins with `/<skill-name>` gets that skill's body directly.
 */
export interface SkillsExtension extends AgentExtension {
  /** The catalog for a project folder, loaded (and indexed) on first use. */
  catalog(cwd: string): Promise<SkillCatalog>;
  /** Drops loaded catalogs; the next use re-reads the skill folders. */
  refresh(): void;
}

export function createSkillsExtension(options: { config: SkillsConfig; index?: SearchIndex; warn?: (message: string) => void }): SkillsExtension {
  const { config, index, warn } = options;
  const catalogs = new Map<string, Promise<SkillCatalog>>();
  const tools = new WeakMap<SkillCatalog, AnyTool>();
  /** Per project folder: the watcher of its skill roots, the sessions told about changes, and the roots it cannot follow (said to each session). */
  const watched = new Map<string, { stop: () => void; sessions: Map<string, (event: AgentOutput) => void>; unwatched: string[] }>();
  const notice = (sessionId: string, message: string): AgentOutput => ({ type: 'notice', sessionId, level: 'warning', message });

  const commandsOf = (sessionId: string, loaded: SkillCatalog): AgentOutput => ({
    type: 'commands',
    sessionId,
    commands: loaded.skills.map((skill) => ({ name: skill.name, description: skill.description, hint: 'what to do with this skill' })),
  });

  /** Skills changed on disk: reload the catalog and re-announce the commands to the project's sessions. */
  const reload = async (cwd: string) => {
    catalogs.delete(cwd);
    const loaded = await catalog(cwd).catch(() => undefined);
    const entry = watched.get(cwd);
    if (!loaded || !entry) return;
    for (const [sessionId, emit] of entry.sessions) emit(commandsOf(sessionId, loaded));
  };

  /** Each load's skipped skills, once, on the log as well as in each session's notice: a headless run has no client to tell. */
  const warnSkipped = (loaded: SkillCatalog, cwd: string) => {
    const errors = skippedOf(loaded);
    if (warn && errors.length) warn(`${errors.length} skill${errors.length === 1 ? '' : 's'} in ${cwd} skipped: ${errors.map((d) => `${d.path}: ${d.message}`).join('; ')}`);
  };

  const catalog = (cwd: string): Promise<SkillCatalog> => {
    let loaded = catalogs.get(cwd);
    if (!loaded) {
      loaded = SkillCatalog.load({ ...config, cwd, index });
      loaded.then((found) => warnSkipped(found, cwd), () => catalogs.delete(cwd));
      catalogs.set(cwd, loaded);
    }
    return loaded;
  };

  return {
    name: 'skills',
    catalog,
    refresh: () => catalogs.clear(),
    async tools(context: TurnContext) {
      const loaded = await catalog(context.cwd);
      if (loaded.skills.length === 0) return [];
      let tool = tools.get(loaded);
      if (!tool) {
        tool = createReadSkillTool(loaded);
        tools.set(loaded, tool);
      }
      return [tool];
    },
    async systemPrompt(context: TurnContext) {
      const loaded = await catalog(context.cwd);
      if (loaded.skills.length === 0) return undefined;
      const sections: string[] = [];
      const invoked = /^\/([a-z0-9-]+)(?:\s|$)/.exec(context.intent.trim())?.[1];
      const skill = invoked ? loaded.get(invoked) : undefined;
      if (skill) sections.push(`The user invoked the skill "${skill.name}". Follow it:\n${describeSkill(skill)}`);
      // Ranking costs a search; only pay it when the catalog has to be cut.
      const full = loaded.prompt({ maxChars: Number.MAX_SAFE_INTEGER });
      if (full.length <= config.maxPromptChars) sections.push(full);
      else {
        const prefer = await loaded.searchSkills(context.intent, { limit: 20, signal: context.signal });
        sections.push(loaded.prompt({ maxChars: config.maxPromptChars, prefer }));
      }
      const references = await loaded.searchReferences(context.intent, { limit: 3, matchOnly: true, signal: context.signal });
      if (references.length) {
        sections.push(
          `Skill references that match this request (open them with read_skill):\n${references
            .map((hit) => `- ${hit.skill} ${hit.reference.relativePath}: ${hit.reference.text}`)
            .join('\n')}`,
        );
      }
      return sections.join('\n\n');
    },
    async onSessionStart(session, emit) {
      let entry = watched.get(session.cwd);
      if (!entry) {
        // Nothing watched the folders since the catalog was read (no session was open): read them again.
        catalogs.delete(session.cwd);
        const roots = config.roots.map((root) => resolveRoot(root, session.cwd));
        const unwatched: string[] = [];
        // A change the agent cannot see is one the user should hear of: else a new skill just never shows.
        const onUnwatched = (root: string, cause: string) => {
          const folder = `${root} (${cause})`;
          const message = unwatchedMessage([folder]);
          unwatched.push(folder);
          warn?.(message);
          for (const [sessionId, tell] of watched.get(session.cwd)?.sessions ?? []) tell(notice(sessionId, message));
        };
        entry = { stop: watchSkillRoots(roots, () => void reload(session.cwd), onUnwatched), sessions: new Map(), unwatched };
        watched.set(session.cwd, entry);
      }
      entry.sessions.set(session.sessionId, emit);
      if (entry.unwatched.length > 0) emit(notice(session.sessionId, unwatchedMessage(entry.unwatched)));
      const loaded = await catalog(session.cwd);
      const errors = skippedOf(loaded);
      if (errors.length) {
        emit(notice(session.sessionId, `${errors.length} skill${errors.length === 1 ? '' : 's'} skipped:\n${errors.map((d) => `- ${d.path}: ${d.message}`).join('\n')}`));
      }
      if (loaded.skills.length) emit(commandsOf(session.sessionId, loaded));
    },
    onSessionClose(sessionId) {
      for (const [cwd, entry] of watched) {
        if (!entry.sessions.delete(sessionId) || entry.sessions.size > 0) continue;
        entry.stop();
        watched.delete(cwd);
        catalogs.delete(cwd);
      }
    },
  };
}

/** What the user is told of skill folders the system would not watch (each `root (cause)`). */
function unwatchedMessage(roots: readonly string[]): string {
  return `Skills are not followed while a session is open in ${roots.join(', ')}: they are read again when a session opens. On Linux, raise fs.inotify.max_user_watches, or close other programs that watch files.`;
}

/** The diagnostics of skills that did not load and were not excluded on purpose: errors, and a name already taken. */
function skippedOf(loaded: SkillCatalog) {
  return loaded.diagnostics.filter((diagnostic) => diagnostic.level === 'error' || diagnostic.code === 'duplicate');
}
