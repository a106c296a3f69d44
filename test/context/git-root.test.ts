import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGitRoot } from '../../src/context/git-root.js';
import { Rules } from '../../src/context/rules.js';
import { createRulesExtension } from '../../src/context/rules-extension.js';
import { configSchema } from '../../src/config/schema.js';
import { tempDir, turnContext } from './context-test-kit.js';

describe('the git root the rules of parent folders are read from', () => {
  let temp: { dir: string; cleanup(): Promise<void> };
  let repo: string;
  let app: string;
  const uid = process.getuid!();

  beforeAll(async () => {
    temp = await tempDir('git-root');
    repo = join(temp.dir, 'home', 'repo');
    app = join(repo, 'packages', 'app');
    await mkdir(join(repo, '.git'), { recursive: true });
    await mkdir(app, { recursive: true });
    await writeFile(join(repo, 'AGENTS.md'), '- PLANTED-RULE\n');
  });
  afterAll(() => temp?.cleanup());

  it('is the nearest folder holding .git, the folder itself included', async () => {
    expect(await findGitRoot(app, { home: join(temp.dir, 'home'), uid })).toEqual({ root: repo });
    expect(await findGitRoot(repo, { home: join(temp.dir, 'home'), uid })).toEqual({ root: repo });
  });

  it('is found from the real folder of a project opened through a symlink, as git finds it; the rules above are read', async () => {
    const link = join(temp.dir, 'home', 'work-link');
    await symlink(app, link);
    const real = await realpath(repo);
    expect(await findGitRoot(link, { home: join(temp.dir, 'home'), uid })).toEqual({ root: real });
    const packages = join(repo, 'packages', 'AGENTS.md');
    await writeFile(packages, '- PACKAGES-RULE\n');
    try {
      const rules = new Rules({ cwd: link, gitRoot: { home: join(temp.dir, 'home'), uid } });
      expect((await rules.parents()).map((file) => file.text)).toEqual(['- PLANTED-RULE\n', '- PACKAGES-RULE\n']);
    } finally {
      await rm(packages);
    }
  });

  it("an additional directory's rules come from its own git root down, as the project's do: the parents' file, then its own, which the budget keeps first", async () => {
    const other = join(temp.dir, 'home', 'other');
    await mkdir(other, { recursive: true });
    const own = join(app, 'AGENTS.md');
    await writeFile(own, '- APP-RULE\n');
    try {
      const extension = createRulesExtension({ config: configSchema.parse({}).rules, home: join(temp.dir, 'home'), homeRulesFile: join(temp.dir, 'none', 'AGENTS.md') });
      const prompt = (await extension.systemPrompt?.({ ...turnContext({ cwd: other }), additionalDirectories: [app] })) ?? '';
      expect(prompt).toContain('- PLANTED-RULE');
      expect(prompt.indexOf('- PLANTED-RULE')).toBeLessThan(prompt.indexOf('- APP-RULE'));

      // Over the budget, the directory's own file is kept before its parents', as the project's is.
      const long = `- APP-RULE ${'keep this whole. '.repeat(18)}\n`;
      await writeFile(own, long);
      const tight = createRulesExtension({ config: { ...configSchema.parse({}).rules, maxPromptChars: 400 }, home: join(temp.dir, 'home'), homeRulesFile: join(temp.dir, 'none', 'AGENTS.md') });
      const cut = (await tight.systemPrompt?.({ ...turnContext({ cwd: other }), additionalDirectories: [app] })) ?? '';
      expect(cut).toContain(long.trim());
      expect(cut).not.toContain('- PLANTED-RULE');
    } finally {
      await rm(own);
    }
  });

  it('is never the home folder or above it: a dotfiles repository in home is no project', async () => {
    expect(await findGitRoot(app, { home: repo, uid })).toBeUndefined();
    expect(await findGitRoot(repo, { home: repo, uid })).toBeUndefined();
  });

  it("is refused when its .git belongs to another user, as git does (a /tmp/.git planted by someone else): no parent's rules, said once", async () => {
    const other = uid + 1;
    expect(await findGitRoot(app, { home: join(temp.dir, 'home'), uid: other })).toEqual({ foreign: repo, owner: uid });
    const warnings: string[] = [];
    const rules = new Rules({ cwd: app, gitRoot: { home: join(temp.dir, 'home'), uid: other }, warn: (message) => warnings.push(message) });
    expect(await rules.parents()).toEqual([]);
    expect(await rules.parents()).toEqual([]);
    expect(warnings).toEqual([`the rules files above ${app} are not read: ${join(repo, '.git')} belongs to another user (uid ${uid}), so it is not taken as your project's root, as git refuses it (safe.directory); only ${app}'s own rules apply`]);
    const own = new Rules({ cwd: app, gitRoot: { home: join(temp.dir, 'home'), uid } });
    expect((await own.parents()).map((file) => file.text)).toEqual(['- PLANTED-RULE\n']);
  });
});
