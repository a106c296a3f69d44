import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireTestModel } from '../model/test-models.js';
import { agentText } from '../helpers/acp-cli.js';
import { newSession, project, prompt, start, state, stop, systemOf, updatesOf, useScenario, waitFor } from './behaviours-kit.js';

useScenario();

/** Everything the model was sent (system prompts and tool results alike), as one text. */
const sentToModel = () => JSON.stringify(state.server.requests.map((request) => request.messages));

/** A project config on the offline test embedder, so rule links are matched as in a real project. */
/** A SKILL.md in `folder` (created). */
const writeSkill = (folder: string, name: string) => {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill, for the test of skills following the disk.\n---\nDo ${name}.\n`);
};

/** The skill names of a session's latest available_commands_update (the agent's own commands left out). */
const skillCommands = (cli: ReturnType<typeof start>, sessionId: string) =>
  ((updatesOf(cli, sessionId, 'available_commands_update').at(-1)?.availableCommands ?? []) as Array<{ name: string }>)
    .map((command) => command.name)
    .filter((name) => name !== 'permissions' && name !== 'mcp')
    .sort()
    .join();

const config = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 }, ...extra });

describe('the context user: rules, skills, memory and plans through the CLI over ACP', () => {
  it('a rules file that leads outside the project (a link, a symlinked nested AGENTS.md) stays out of the prompt, said on stderr; agent.allowedRoots lets it in', { timeout: 60_000 }, async () => {
    const outside = mkdtempSync(join(tmpdir(), 'plaited-outside-'));
    writeFileSync(join(outside, 'deploy.md'), '# Deployment\nOUTSIDE-SECRET-LINK aws_secret_access_key=abc\n');
    writeFileSync(join(outside, 'key.md'), 'OUTSIDE-SECRET-SYMLINK -----BEGIN OPENSSH PRIVATE KEY-----\n');
    const rules = (cwd: string) => {
      writeFileSync(join(cwd, 'AGENTS.md'), `# Rules\n- Be brief.\n- Deployment follows [the deployment notes](${relative(cwd, join(outside, 'deploy.md'))}).\n`);
      mkdirSync(join(cwd, 'sub'));
      writeFileSync(join(cwd, 'sub', 'notes.txt'), 'notes\n');
      symlinkSync(join(outside, 'key.md'), join(cwd, 'sub', 'AGENTS.md'));
    };

    const cwd = project(config());
    rules(cwd);
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'sub/notes.txt' } }] }, { text: 'Deployed.' });
    expect((await prompt(cli, sessionId, 'explain the deployment notes')).stopReason).toBe('end_turn');
    expect(sentToModel()).toContain('Be brief.');
    expect(sentToModel()).not.toContain('OUTSIDE-SECRET');
    expect(cli.stderr()).toMatch(/the rules file \S+deploy\.md is left out of the prompt: it leads outside the project/);
    expect(cli.stderr()).toMatch(/the rules file \S+sub\/AGENTS\.md is left out of the prompt: it leads outside the project .*agent\.allowedRoots/);

    // The user who means it names the folder, as for the file tools.
    const allowed = project(config({ agent: { allowedRoots: [outside] } }));
    rules(allowed);
    const again = start(allowed);
    const second = await newSession(again, allowed);
    const before = state.server.requests.length;
    state.server.push({ text: 'Deployed.' });
    await prompt(again, second.sessionId, 'explain the deployment notes');
    expect(JSON.stringify(state.server.requests.slice(before))).toContain('OUTSIDE-SECRET-LINK');
  });

  it('memory: the model is told where pages live; pages edited or deleted on disk are searched as they are now; a page that is a link out is refused; pages survive a restart', { timeout: 60_000 }, async () => {
    const outside = mkdtempSync(join(tmpdir(), 'plaited-outside-'));
    writeFileSync(join(outside, 'id.md'), 'OUTSIDE-SECRET-KEY\n');
    const cwd = project(config({ memory: { enabled: true } }));
    const wiki = join(cwd, '.plaited', 'memory');
    mkdirSync(wiki);
    writeFileSync(join(wiki, 'deploy.md'), '# Deploy\nWe deploy with rsync to the host alpha.\n');
    symlinkSync(join(outside, 'id.md'), join(wiki, 'keys.md'));
    /** The tool results the model read in the last request (of the turn just ended). */
    const toolResults = () => {
      const messages = state.server.requests.at(-1)!.messages;
      const turn = messages.slice(messages.findLastIndex((message) => message.role === 'user'));
      return turn.filter((message) => message.role === 'tool').map((message) => String(message.content));
    };

    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ toolCalls: [{ name: 'memory_search', arguments: { query: 'deploy rsync' } }] }, { text: 'Noted.' });
    await prompt(cli, sessionId, 'how do we deploy?');
    expect(systemOf(state.server.requests[0]!)).toContain('.plaited/memory/');
    expect(toolResults()[0]).toContain('deploy.md');

    // The user changes memory in an editor while the agent runs: a page deleted, another written.
    rmSync(join(wiki, 'deploy.md'));
    writeFileSync(join(wiki, 'release.md'), '# Release\nReleases go out on Tuesdays through the canary ring.\n');
    state.server.push({ toolCalls: [{ name: 'memory_search', arguments: { query: 'release canary tuesdays' } }] }, { text: 'Noted.' });
    await prompt(cli, sessionId, 'when do releases go out?');
    const [fresh] = toolResults();
    expect(fresh).toContain('release.md');
    expect(fresh).not.toContain('deploy.md');
    await stop(cli);

    const again = start(cwd);
    const second = await newSession(again, cwd);
    state.server.push(
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'canary ring' } }, { name: 'memory_get', arguments: { path: 'keys.md' } }] },
      { text: 'Noted.' },
    );
    await prompt(again, second.sessionId, 'remind me about releases');
    const [found, refused] = toolResults();
    expect(found).toContain('release.md');
    expect(refused).toContain('"keys.md" leads outside the memory folder');
    expect(sentToModel()).not.toContain('OUTSIDE-SECRET');
  });

  it('skills follow the disk: a symlinked skill folder loads, a root created while the agent runs is watched, a session opened after the last one closed sees the skills as they are now', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    const shared = mkdtempSync(join(tmpdir(), 'plaited-my-skills-'));
    writeSkill(join(shared, 'lint'), 'lint');
    mkdirSync(join(cwd, '.plaited', 'skills'));
    symlinkSync(join(shared, 'lint'), join(cwd, '.plaited', 'skills', 'lint'));
    const cli = start(cwd);
    const first = await newSession(cli, cwd);
    await waitFor(() => skillCommands(cli, first.sessionId) === 'lint', 'the symlinked skill among the commands');

    // No .claude folder at start; the user makes one, and writes the skill some time later.
    const updates = () => updatesOf(cli, first.sessionId, 'available_commands_update').length;
    const seen = updates();
    mkdirSync(join(cwd, '.claude', 'skills', 'review'), { recursive: true });
    await waitFor(() => updates() > seen, 'the new skills folder noticed');
    writeSkill(join(cwd, '.claude', 'skills', 'review'), 'review');
    await waitFor(() => skillCommands(cli, first.sessionId) === 'lint,review', 'the skill written in the new folder');

    // The editor closes its last thread; a skill is added; the next thread must offer it.
    await cli.agent.request('session/close', { sessionId: first.sessionId });
    writeSkill(join(cwd, '.claude', 'skills', 'ship'), 'ship');
    const second = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(() => skillCommands(cli, second.sessionId) === 'lint,review,ship', 'the skill added while no session was open');
  });

  it('a skill named like the agent\'s own command (/permissions) is not listed as that command, and the user is told why', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeSkill(join(cwd, '.plaited', 'skills', 'permissions'), 'permissions');
    writeSkill(join(cwd, '.plaited', 'skills', 'deploy'), 'deploy');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    await waitFor(() => skillCommands(cli, sessionId) === 'deploy', 'the skill commands');
    const listed = (updatesOf(cli, sessionId, 'available_commands_update').at(-1)!.availableCommands as Array<{ name: string; description: string }>).filter(
      (command) => command.name === 'permissions',
    );
    expect(listed).toHaveLength(1);
    expect(listed[0]!.description).toContain('permission rules');
    await waitFor(() => agentText(cli, sessionId).includes('the skill "permissions" is not offered as a slash command'), 'the notice');
  });

  it('200 skills: the catalog stays within skills.maxPromptChars and names every skill, so the model can open any of them', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    const names = Array.from({ length: 200 }, (_, i) => `task-${String(i).padStart(3, '0')}-helper`);
    for (const name of names) {
      mkdirSync(join(cwd, '.claude', 'skills', name), { recursive: true });
      const description = `Helps with task ${name}, use it when the user asks for this kind of work in this repository, with the details it needs.`;
      writeFileSync(join(cwd, '.claude', 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`);
    }
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    const system = systemOf(state.server.requests[0]!);
    const catalog = system.slice(system.indexOf('Skills hold instructions'), system.indexOf('</available_skills>') + '</available_skills>'.length);
    expect(catalog.length).toBeLessThanOrEqual(12_000);
    expect(names.filter((name) => !catalog.includes(name))).toEqual([]);
  });

  it('rules over rules.maxPromptChars: the model gets the cut text, and the user who wrote them is told once on stderr', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeFileSync(join(cwd, 'AGENTS.md'), `# Rules\n- FIRST-RULE: be brief.\n${'- Keep this long list of conventions in mind.\n'.repeat(600)}- LAST-RULE: never push to main.\n`);
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ text: 'Ok.' }, { text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    await prompt(cli, sessionId, 'hello again');
    expect(sentToModel()).toContain('FIRST-RULE');
    expect(sentToModel()).not.toContain('LAST-RULE');
    const told = cli.stderr().match(/the rules sent to the model for \S+ are cut at rules\.maxPromptChars \(20000 of \d+ characters\)/g) ?? [];
    expect(told).toHaveLength(1);
  });

  it('a SKILL.md with an unquoted ": " in its description is skipped with an error that names its line in the file and the fix', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    mkdirSync(join(cwd, '.plaited', 'skills', 'deploy'), { recursive: true });
    writeFileSync(join(cwd, '.plaited', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy the app: use it for releases\n---\nDo it.\n');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    const expected = 'at line 3: "description: Deploy the app: use it for releases"; a value holding ": " must be quoted (description: "…")';
    await waitFor(() => agentText(cli, sessionId).includes(expected), 'the skipped skill notice');
    expect(cli.stderr()).toContain(expected);
  });

  it('one rules file reachable several ways (AGENTS.md a link to CLAUDE.md, which it links to; sub/AGENTS.md a link to it) is sent once', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeFileSync(join(cwd, 'CLAUDE.md'), '# Rules\n- ROOT-RULE: run the tests.\n- Follow [the coding conventions](CLAUDE.md).\n');
    symlinkSync('CLAUDE.md', join(cwd, 'AGENTS.md'));
    mkdirSync(join(cwd, 'sub'));
    symlinkSync('../CLAUDE.md', join(cwd, 'sub', 'AGENTS.md'));
    writeFileSync(join(cwd, 'sub', 'notes.txt'), 'notes\n');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'sub/notes.txt' } }] }, { text: 'Done.' });
    await prompt(cli, sessionId, 'follow the coding conventions');
    const last = JSON.stringify(state.server.requests.at(-1)!.messages);
    expect(last.split('ROOT-RULE').length - 1).toBe(1);
  });

  it("a project written for Claude Code (CLAUDE.md, no AGENTS.md) has its rules read; beside an AGENTS.md, AGENTS.md wins", { timeout: 60_000 }, async () => {
    const claudeOnly = project(config());
    writeFileSync(join(claudeOnly, 'CLAUDE.md'), '# Rules\n- CLAUDE-ONLY-RULE: run the tests before a commit.\n');
    const both = project(config());
    writeFileSync(join(both, 'CLAUDE.md'), '# Rules\n- CLAUDE-BESIDE-RULE\n');
    writeFileSync(join(both, 'AGENTS.md'), '# Rules\n- AGENTS-RULE\n');
    for (const cwd of [claudeOnly, both]) {
      const cli = start(cwd);
      const { sessionId } = await newSession(cli, cwd);
      state.server.push({ text: 'Ok.' });
      await prompt(cli, sessionId, 'hello');
    }
    const [first, second] = state.server.requests.slice(-2).map((request) => JSON.stringify(request.messages));
    expect(first).toContain('CLAUDE-ONLY-RULE');
    expect(second).toContain('AGENTS-RULE');
    expect(second).not.toContain('CLAUDE-BESIDE-RULE');
  });

  it('a monorepo: the home-level AGENTS.md, then the rules from the git root down to the package opened, the nearest last; nothing above the git root, nothing above a folder outside any repository', { timeout: 60_000 }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'plaited-monorepo-'));
    writeFileSync(join(base, 'AGENTS.md'), '- ABOVE-ROOT-RULE\n');
    const repo = join(base, 'repo');
    const web = join(repo, 'packages', 'web');
    mkdirSync(web, { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'AGENTS.md'), '- REPO-ROOT-RULE: tabs.\n');
    writeFileSync(join(repo, 'packages', 'CLAUDE.md'), '- PACKAGES-CLAUDE-RULE: spaces.\n');
    writeFileSync(join(web, 'AGENTS.md'), '- WEB-RULE: two spaces.\n');
    const plain = join(base, 'plain', 'app');
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(base, 'plain', 'AGENTS.md'), '- NO-REPOSITORY-PARENT-RULE\n');
    writeFileSync(join(plain, 'AGENTS.md'), '- PLAIN-APP-RULE\n');
    // The user's own rules, in the user's plaited-agent folder (never the real one in a test).
    const configHome = mkdtempSync(join(tmpdir(), 'plaited-config-home-'));
    const homeFile = join(configHome, 'plaited-agent', 'AGENTS.md');
    mkdirSync(join(configHome, 'plaited-agent'));
    writeFileSync(homeFile, '- HOME-RULE: answer in English.\n');

    const cli = start(web, { env: { XDG_CONFIG_HOME: configHome } });
    const { sessionId } = await newSession(cli, web);
    state.server.push({ text: 'Ok.' }, { text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    const system = systemOf(state.server.requests.at(-1)!);
    const order = ['HOME-RULE', 'REPO-ROOT-RULE', 'PACKAGES-CLAUDE-RULE', 'WEB-RULE'].map((rule) => system.indexOf(rule));
    expect(order).not.toContain(-1);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).toContain(`<rules path="${homeFile}">`);
    expect(system).toContain('<rules path="../../AGENTS.md">');
    expect(system).toContain('<rules path="../CLAUDE.md">');
    expect(system).not.toContain('ABOVE-ROOT-RULE');

    const { sessionId: plainSession } = await newSession(cli, plain);
    await prompt(cli, plainSession, 'hello');
    const plainSystem = systemOf(state.server.requests.at(-1)!);
    expect(plainSystem).toContain('PLAIN-APP-RULE');
    expect(plainSystem).toContain('HOME-RULE');
    expect(plainSystem).not.toContain('NO-REPOSITORY-PARENT-RULE');
  });

  it("a parent's rules file that leads out of the repository, or to a file there that is not markdown (.env), stays out, said on stderr; a long parent file is cut before the project's own", { timeout: 60_000 }, async () => {
    const outside = mkdtempSync(join(tmpdir(), 'plaited-outside-'));
    writeFileSync(join(outside, 'key.md'), 'PARENT-SECRET -----BEGIN OPENSSH PRIVATE KEY-----\n');
    const repo = mkdtempSync(join(tmpdir(), 'plaited-worktree-'));
    // A worktree's .git is a file.
    writeFileSync(join(repo, '.git'), `gitdir: ${join(outside, 'worktrees', 'x')}\n`);
    writeFileSync(join(repo, '.env'), 'DOTENV-SECRET=hunter2\n');
    symlinkSync(join(outside, 'key.md'), join(repo, 'AGENTS.md'));
    const packages = join(repo, 'packages');
    const app = join(packages, 'app');
    const web = join(app, 'web');
    mkdirSync(web, { recursive: true });
    writeFileSync(join(packages, 'AGENTS.md'), `- LONG-PARENT-FIRST\n${'- A convention of the packages.\n'.repeat(1000)}- LONG-PARENT-LAST\n`);
    symlinkSync('../../.env', join(app, 'AGENTS.md'));
    writeFileSync(join(web, 'AGENTS.md'), '- WEB-OWN-RULE: keep it.\n');

    const cli = start(web);
    const { sessionId } = await newSession(cli, web);
    state.server.push({ text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    const system = systemOf(state.server.requests.at(-1)!);
    expect(system).not.toContain('PARENT-SECRET');
    expect(system).not.toContain('DOTENV-SECRET');
    const refusal = (file: string, target: string) => `the rules file ${file} is left out of the prompt: it leads to ${target}; a rules file above the project is read only as markdown (.md) inside its git repository ${repo}`;
    expect(cli.stderr()).toContain(refusal(join(repo, 'AGENTS.md'), join(outside, 'key.md')));
    expect(cli.stderr()).toContain(refusal(join(app, 'AGENTS.md'), join(repo, '.env')));
    expect(system).toContain('WEB-OWN-RULE: keep it.');
    expect(system).toContain('LONG-PARENT-FIRST');
    expect(system).not.toContain('LONG-PARENT-LAST');
    expect(system.indexOf('LONG-PARENT-FIRST')).toBeLessThan(system.indexOf('WEB-OWN-RULE'));
  });

  it('a project of CLAUDE.md that gets an AGENTS.md reads AGENTS.md from the next turn, without a restart', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeFileSync(join(cwd, 'CLAUDE.md'), '- CLAUDE-FIRST-RULE\n');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ text: 'Ok.' }, { text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    expect(systemOf(state.server.requests.at(-1)!)).toContain('CLAUDE-FIRST-RULE');
    writeFileSync(join(cwd, 'AGENTS.md'), '- AGENTS-LATER-RULE\n');
    await prompt(cli, sessionId, 'hello again');
    const system = systemOf(state.server.requests.at(-1)!);
    expect(system).toContain('AGENTS-LATER-RULE');
    expect(system).not.toContain('CLAUDE-FIRST-RULE');
  });

  it('an AGENTS.md saved as Latin-1 is still sent, and the user is told once that it is not UTF-8', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeFileSync(join(cwd, 'AGENTS.md'), Buffer.from('# Règles\n- LATIN-RULE: écrire les tests.\n', 'latin1'));
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ text: 'Ok.' }, { text: 'Ok.' });
    await prompt(cli, sessionId, 'hello');
    await prompt(cli, sessionId, 'hello again');
    expect(sentToModel()).toContain('LATIN-RULE');
    expect(cli.stderr().split(`the rules file ${join(cwd, 'AGENTS.md')} is not UTF-8`).length - 1).toBe(1);
  });

  it('wiki_lint only reads: it runs without a permission question and names a wikilink to nowhere', { timeout: 60_000 }, async () => {
    const cwd = project(config({ memory: { enabled: true } }));
    mkdirSync(join(cwd, '.plaited', 'memory'));
    writeFileSync(join(cwd, '.plaited', 'memory', 'auth.md'), '# Auth\nTokens expire hourly; see [[session-store]].\n');
    const asked: string[] = [];
    const cli = start(cwd, {
      onPermission: (request) => {
        asked.push(String(request.toolCall.title));
        return { outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } };
      },
    });
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ toolCalls: [{ name: 'wiki_lint', arguments: {} }] }, { text: 'Checked.' });
    await prompt(cli, sessionId, 'check the memory');
    expect(asked).toEqual([]);
    expect(sentToModel()).toContain('[[session-store]] links to no page');
  });

  it('memory_get of a page with a huge line returns a cut window and how to go on, not the whole page', { timeout: 60_000 }, async () => {
    const cwd = project(config({ memory: { enabled: true } }));
    mkdirSync(join(cwd, '.plaited', 'memory'));
    writeFileSync(join(cwd, '.plaited', 'memory', 'dump.md'), `# Dump\n${`${'x'.repeat(20_000)}\n`.repeat(45)}`);
    writeFileSync(join(cwd, '.plaited', 'memory', 'huge.md'), `# Huge\n${'z'.repeat(2 * 1024 * 1024)}\n`);
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push(
      { toolCalls: [{ name: 'memory_get', arguments: { path: 'dump.md' } }, { name: 'memory_get', arguments: { path: 'huge.md' } }] },
      { text: 'Read.' },
    );
    await prompt(cli, sessionId, 'read the dump');
    const [dump, huge] = state.server.requests.at(-1)!.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(dump).toContain('[line cut: 20000 characters]');
    expect(dump!.length).toBeLessThan(70_000);
    expect(dump).toMatch(/continue with from=\d+/);
    expect(huge!.length).toBeLessThan(70_000);
    expect(huge).toContain('the rest is not read; split the page');
  });

  it('two skills of one name: the first root wins and the user is told which copy was skipped', { timeout: 60_000 }, async () => {
    const cwd = project(config());
    writeSkill(join(cwd, '.plaited', 'skills', 'deploy'), 'deploy');
    writeSkill(join(cwd, '.claude', 'skills', 'deploy'), 'deploy');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    const expected = `${join(cwd, '.claude', 'skills', 'deploy', 'SKILL.md')}: skill "deploy" is already loaded from ${join(cwd, '.plaited', 'skills', 'deploy', 'SKILL.md')}; this copy is skipped`;
    await waitFor(() => agentText(cli, sessionId).includes(expected), 'the duplicate notice');
    expect(cli.stderr()).toContain(expected);
  });
});
