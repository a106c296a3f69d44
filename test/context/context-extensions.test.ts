import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import type { SessionInfo } from '../../src/agent/agent.js';
import { configSchema } from '../../src/config/schema.js';
import { createContextCache, createContextExtensions } from '../../src/context/context-extensions.js';
import type { Embedder } from '../../src/model/embedder.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { FIXTURES, testEmbedder, testIndex, turnContext } from './context-test-kit.js';
import { withPatchedFs, watchAtTheLimit } from '../helpers/patched-fs.js';

const project = join(FIXTURES, 'skills-project');

function session(cwd: string): SessionInfo {
  const now = new Date().toISOString();
  return { sessionId: 'ext-1', cwd, title: null, mode: 'default', createdAt: now, updatedAt: now, mcpServers: [] };
}

describe('createContextExtensions', () => {
  let embedder: Embedder;
  let index: HybridIndex;

  beforeAll(async () => {
    embedder = testEmbedder();
    index = await testIndex(embedder);
  });
  afterAll(async () => {
    index?.close();
    await embedder?.close();
  });

  it('wires rules, skills and plans by default; memory only when enabled', () => {
    const defaults = createContextExtensions({ config: configSchema.parse({}), index });
    expect(defaults.map((extension) => extension.name)).toEqual(['rules', 'skills', 'plans']);
    const all = createContextExtensions({ config: configSchema.parse({ memory: { enabled: true } }), index });
    expect(all.map((extension) => extension.name)).toEqual(['rules', 'skills', 'memory', 'plans']);
    const none = createContextExtensions({ config: configSchema.parse({ skills: { enabled: false }, rules: { enabled: false } }), index });
    expect(none.map((extension) => extension.name)).toEqual(['plans']);
  });

  it('announces skills as slash commands and skipped skills as a warning when a session starts', async () => {
    const [, skills] = createContextExtensions({ config: configSchema.parse({}), index });
    const events: AgentOutput[] = [];
    await skills.onSessionStart!(session(project), (event) => events.push(event));
    const commands = events.find((event) => event.type === 'commands');
    expect(commands?.type === 'commands' && commands.commands.map((command) => command.name)).toEqual([
      'denied-skill',
      'git-release',
      'pdf-forms',
      'weather-report',
    ]);
    const notice = events.find((event) => event.type === 'notice');
    // Two that do not parse, and one whose name another root's copy already took.
    expect(notice?.type === 'notice' && notice.message).toMatch(/3 skills skipped/);
    expect(notice?.type === 'notice' && notice.message).toMatch(/is already loaded from .*; this copy is skipped/);
  });

  it('says which skill folders the system would not watch (its watch limit reached): each session hears it once, the log once per folder', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-unwatched-'));
    const warnings: string[] = [];
    const [, skills] = createContextExtensions({ config: configSchema.parse({ skills: { roots: ['.plaited/skills', '.claude/skills'] } }), index, warn: (message) => warnings.push(message) });
    const first: AgentOutput[] = [];
    const second: AgentOutput[] = [];
    try {
      // The watch is tried as the first session starts, before its first await.
      await withPatchedFs({ watch: watchAtTheLimit }, () => skills.onSessionStart!({ ...session(cwd), sessionId: 'unwatched-1' }, (event) => first.push(event)));
      await skills.onSessionStart!({ ...session(cwd), sessionId: 'unwatched-2' }, (event) => second.push(event));
    } finally {
      skills.onSessionClose!('unwatched-1');
      skills.onSessionClose!('unwatched-2');
    }
    const cause = '(ENOSPC: System limit for number of file watchers reached, watch)';
    const noticesOf = (events: AgentOutput[]) => events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
    expect(noticesOf(second)).toEqual(noticesOf(first));
    const [told] = noticesOf(first);
    expect(noticesOf(first)).toHaveLength(1);
    expect(told).toMatch(/^Skills are not followed while a session is open in /);
    expect(told).toContain(`${join(cwd, '.plaited/skills')} ${cause}, ${join(cwd, '.claude/skills')} ${cause}`);
    expect(told).toMatch(/: they are read again when a session opens\. On Linux, raise fs\.inotify\.max_user_watches, or close other programs that watch files\.$/);
    // The log: a line a folder (the project's two and the user's own skills folder), not one a session.
    expect(warnings).toHaveLength(told!.split(cause).length - 1);
  });

  it('tells the log of skipped skills too (a -p run has no client for the notice), once per load, and of a plan file set aside', async () => {
    const warnings: string[] = [];
    const [, skills, plans] = createContextExtensions({ config: configSchema.parse({}), index, warn: (message) => warnings.push(message) });
    await skills.onSessionStart!(session(project), () => undefined);
    await skills.systemPrompt!(turnContext({ cwd: project, intent: 'hello' }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^3 skills in ${project} skipped: .*SKILL\\.md: `));

    const cwd = mkdtempSync(join(tmpdir(), 'plaited-plan-aside-'));
    try {
      mkdirSync(join(cwd, '.plaited/plans'), { recursive: true });
      writeFileSync(join(cwd, '.plaited/plans/ext-1.json'), '{ "nodes": ');
      expect(await plans.systemPrompt!(turnContext({ sessionId: 'ext-1', cwd, intent: 'hello' }))).toBeUndefined();
      expect(warnings[1]).toMatch(new RegExp(`^the plan file ${join(cwd, '.plaited/plans/ext-1.json')} could not be read \\(.*JSON.*\\): moved to .*ext-1\\.json\\.corrupt-\\d+; the session's plan starts afresh$`));
      const aside = readdirSync(join(cwd, '.plaited/plans')).find((name) => name.startsWith('ext-1.json.corrupt-'));
      expect(readFileSync(join(cwd, '.plaited/plans', aside!), 'utf8')).toBe('{ "nodes": ');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('offers read_skill and plan, puts the catalog in the prompt, and a /skill prompt gets its body', async () => {
    const extensions = createContextExtensions({ config: configSchema.parse({ skills: { deny: ['denied-skill'] } }), index });
    const context = turnContext({ cwd: project, intent: '/pdf-forms fill in the tax form' });
    const tools = (await Promise.all(extensions.map((extension) => extension.tools?.(context) ?? []))).flat();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['plan', 'read_skill']);
    const skills = extensions.find((extension) => extension.name === 'skills')!;
    const prompt = (await skills.systemPrompt!(context)) ?? '';
    expect(prompt).toContain('The user invoked the skill "pdf-forms"');
    expect(prompt).toContain('Use the scripts in this skill');
    expect(prompt).toContain('<available_skills>');
    expect(prompt).not.toContain('denied-skill');
    const plain = (await skills.systemPrompt!(turnContext({ cwd: project, intent: 'fill in the tax form' }))) ?? '';
    expect(plain).not.toContain('The user invoked');
    expect(plain).toContain('- pdf-forms references/forms.md: Filling in fillable form fields');
  });

  it('builds the semantic cache only when it is enabled and an embedder is given', () => {
    expect(createContextCache({ config: configSchema.parse({}), embedder })).toBeUndefined();
    expect(createContextCache({ config: configSchema.parse({ cache: { enabled: true } }) })).toBeUndefined();
    expect(createContextCache({ config: configSchema.parse({ cache: { enabled: true } }), embedder })).toBeDefined();
  });
});
