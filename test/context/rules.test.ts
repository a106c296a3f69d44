import { mkdir, rm, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rules } from '../../src/context/rules.js';
import { createRulesExtension, fitSections } from '../../src/context/rules-extension.js';
import { configSchema } from '../../src/config/schema.js';
import type { ToolCallSummary } from '../../src/agent/agent-extension.js';
import type { Embedder } from '../../src/model/embedder.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { copyFixture, testEmbedder, testIndex, turnContext } from './context-test-kit.js';

function editCall(path: string): ToolCallSummary {
  return {
    toolCallId: 'call-1',
    toolName: 'edit_file',
    risk: 'write',
    source: 'local',
    args: { path, oldText: '1', newText: '2' },
    result: { content: [{ type: 'text', text: `Edited ${path}` }] },
    locations: [{ path }],
  };
}

describe('rules', () => {
  let embedder: Embedder;
  let index: HybridIndex;
  let project: { dir: string; cleanup(): Promise<void> };

  beforeAll(async () => {
    embedder = testEmbedder();
    index = await testIndex(embedder);
    project = await copyFixture('rules-project');
  });
  afterAll(async () => {
    index?.close();
    await embedder?.close();
    await project?.cleanup();
  });

  it('indexes the local links of the root AGENTS.md, not URLs, missing files or fenced examples', async () => {
    const rules = new Rules({ cwd: project.dir, index, namespace: 'rules:links' });
    const links = await rules.links();
    expect(links.map((link) => [link.text, link.path.slice(project.dir.length + 1), link.line])).toEqual([
      ['Database migration conventions', 'docs/migrations.md', 5],
      ['Writing end-to-end tests with Playwright', 'docs/testing.md', 6],
    ]);
  });

  it('loads a linked file when the intent matches its link text, and none for an unrelated intent', async () => {
    const rules = new Rules({ cwd: project.dir, index, namespace: 'rules:intent' });
    const schema = await rules.linkedFor('add a column to the users table in the database schema');
    expect(schema.map((file) => file.path)).toEqual([join(project.dir, 'docs/migrations.md')]);
    const browser = await rules.linkedFor('write a browser test for the login page');
    expect(browser[0]?.path).toBe(join(project.dir, 'docs/testing.md'));
    expect(await rules.linkedFor('what is the weather in Paris tomorrow')).toEqual([]);
  });

  it('finds the nested AGENTS.md files between a touched file and the root, outermost first', async () => {
    const rules = new Rules({ cwd: project.dir });
    const nested = await rules.nestedFor('src/auth/x.ts');
    expect(nested.map((file) => file.path.slice(project.dir.length + 1))).toEqual(['src/AGENTS.md', 'src/auth/AGENTS.md']);
    expect((await rules.nestedFor(join(project.dir, 'src/util/y.ts'))).map((file) => file.path)).toEqual([join(project.dir, 'src/AGENTS.md')]);
    expect(await rules.nestedFor('/etc/passwd')).toEqual([]);
    expect(await rules.nestedFor('README.md')).toEqual([]);
  });

  it('loads nested rules when edit_file touches src/auth/x.ts and not before, for the rest of the turn only', async () => {
    const config = configSchema.parse({}).rules;
    const extension = createRulesExtension({ config, index });
    const context = turnContext({ cwd: project.dir, intent: 'fix the token check in the auth module' });
    const before = (await extension.systemPrompt!(context)) ?? '';
    expect(before).toContain('Use TypeScript strict mode');
    expect(before).not.toContain('Never log tokens');
    expect(before).not.toContain('Every module under src/');

    // A call that touches nothing under src/ loads nothing.
    const readme = editCall(join(project.dir, 'README.md'));
    await extension.onToolResult!(context, readme);
    expect(readme.result.content).toHaveLength(1);
    expect(extension.nestedLoaded(context.sessionId)).toEqual([]);

    const call = editCall(join(project.dir, 'src/auth/x.ts'));
    await extension.onToolResult!(context, call);
    const appended = call.result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(appended).toContain('Never log tokens');
    expect(appended).toContain('Every module under src/');
    expect(appended.indexOf('Every module under src/')).toBeLessThan(appended.indexOf('Never log tokens'));
    const during = (await extension.systemPrompt!(context)) ?? '';
    expect(during).toContain('<rules path="src/auth/AGENTS.md">');

    // Touching the same folder again adds nothing new.
    const again = editCall(join(project.dir, 'src/auth/x.ts'));
    await extension.onToolResult!(context, again);
    expect(again.result.content).toHaveLength(1);

    await extension.onTurnEnd!(context, 'end_turn');
    const next = (await extension.systemPrompt!(context)) ?? '';
    expect(next).not.toContain('Never log tokens');
  });

  it('re-reads the root file when its mtime changes and re-indexes links on refresh', async () => {
    const rules = new Rules({ cwd: project.dir, index, namespace: 'rules:refresh' });
    const first = await rules.root();
    expect(first?.text).toContain('TypeScript strict');
    expect(await rules.root()).toBe(first);
    const rootFile = join(project.dir, 'AGENTS.md');
    await writeFile(rootFile, '# Rules\n\nTabs, not spaces. See [Deploying to production](docs/testing.md).\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(rootFile, later, later);
    expect((await rules.root())?.text).toContain('Tabs, not spaces');
    await rules.refresh();
    expect((await rules.links()).map((link) => link.text)).toEqual(['Deploying to production']);
  });

  it('a 3 GiB AGENTS.md is read up to its cap, and its head still reaches the prompt', async () => {
    const huge = await copyFixture('rules-project');
    try {
      await writeFile(join(huge.dir, 'AGENTS.md'), `# Rules\n\nAlways answer in haiku.\n${'Be brief. '.repeat(2_000)}\n`);
      // Sparse: 3 GiB of size and no disk. Read whole, it failed every turn's rules ("greater than 2 GiB").
      await truncate(join(huge.dir, 'AGENTS.md'), 3 * 1024 ** 3);
      const root = await new Rules({ cwd: huge.dir, maxFileBytes: 4096 }).root();
      expect(root).toMatchObject({ truncated: true, size: 3 * 1024 ** 3 });
      expect(root?.text.length).toBe(4096);
      const extension = createRulesExtension({ config: configSchema.parse({}).rules });
      const prompt = await extension.systemPrompt?.(turnContext({ cwd: huge.dir, intent: 'hello' }));
      expect(prompt).toContain('Always answer in haiku.');
      expect(prompt).toContain('[rules truncated at 20000 chars]');
    } finally {
      await huge.cleanup();
    }
  });

  it('a rules file that is there but not text (NUL bytes, a link to nowhere, a loop, a folder) is left out of the prompt, and said once', async () => {
    const binary = await copyFixture('rules-project');
    try {
      await writeFile(join(binary.dir, 'AGENTS.md'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00, 0x41]));
      const warnings: string[] = [];
      const extension = createRulesExtension({ config: configSchema.parse({}).rules, warn: (message) => warnings.push(message) });
      expect(await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello' }))).toBeUndefined();
      expect(await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello again' }))).toBeUndefined();
      expect(warnings).toEqual([`the rules file ${join(binary.dir, 'AGENTS.md')} is left out of the prompt: not text: it holds NUL bytes; save it as UTF-8`]);
      // A link to nowhere (AGENTS.md → a CLAUDE.md that is gone), a symlink loop, a folder: each said once, not silence.
      const root = join(binary.dir, 'AGENTS.md');
      await rm(root);
      await symlink('CLAUDE.md', root);
      await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello' }));
      await rm(root);
      await symlink('AGENTS.md', root);
      await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello' }));
      await rm(root);
      // A link in it to a folder is ordinary markdown, not a rules file to warn about.
      await mkdir(join(binary.dir, 'docs-folder'));
      await writeFile(root, 'See [the docs](docs-folder/).\n');
      await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'the docs' }));
      await rm(root);
      await mkdir(root);
      await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello' }));
      await extension.systemPrompt?.(turnContext({ cwd: binary.dir, intent: 'hello' }));
      expect(warnings.slice(1)).toEqual([
        `the rules file ${root} is left out of the prompt: a link to CLAUDE.md, which is not there`,
        `the rules file ${root} is left out of the prompt: ELOOP: too many symbolic links encountered, stat '${root}'`,
        `the rules file ${root} is left out of the prompt: a folder`,
      ]);
    } finally {
      await binary.cleanup();
    }
  });

  it('fits sections into the rules budget, cutting the last one', () => {
    const text = fitSections(['a'.repeat(300), 'b'.repeat(600), 'c'.repeat(100)], 700);
    expect(text.length).toBeLessThanOrEqual(700);
    expect(text).toContain('[rules truncated');
    expect(text).not.toContain('ccc');
  });
});
