import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadSkillTool } from '../../src/context/read-skill-tool.js';
import { SkillCatalog } from '../../src/context/skill-catalog.js';
import type { Embedder } from '../../src/model/embedder.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { FIXTURES, tempDir, testEmbedder, testIndex, textOf, toolContext } from './context-test-kit.js';

const project = join(FIXTURES, 'skills-project');
const roots = ['.plaited/skills', '.claude/skills', '.agents/skills'];

/** Writes `count` generated skills with long descriptions under `<dir>/skills`. */
async function generateSkills(dir: string, count: number): Promise<void> {
  const topics = ['docker', 'postgres', 'kubernetes', 'react', 'terraform', 'pdf', 'excel', 'git', 'python', 'rust'];
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(3, '0')}-${topics[i % topics.length]}`;
    await mkdir(join(dir, 'skills', name), { recursive: true });
    const description = `Helps with ${topics[i % topics.length]} task number ${i}: ${'detailed guidance about when to use this skill and what it covers. '.repeat(3)}`;
    await writeFile(join(dir, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\nDo the ${i} thing.\n`);
  }
}

describe('SkillCatalog', () => {
  let embedder: Embedder;
  let index: HybridIndex;
  let catalog: SkillCatalog;

  beforeAll(async () => {
    embedder = testEmbedder();
    index = await testIndex(embedder);
    catalog = await SkillCatalog.load({ roots, cwd: project, index });
  });
  afterAll(async () => {
    index?.close();
    await embedder?.close();
  });

  it('renders every skill with name, description and location when they fit', () => {
    const prompt = catalog.prompt({ maxChars: 12_000 });
    expect(prompt).toContain('<name>pdf-forms</name>');
    expect(prompt).toContain('<location>.plaited/skills/git-release/SKILL.md</location>');
    expect(prompt).toContain('Cut a release of this project');
    expect(prompt).not.toContain('missing-description');
  });

  it('keeps the catalog of 200 skills under maxPromptChars, shortening descriptions before dropping skills', async () => {
    const temp = await tempDir('catalog');
    try {
      await generateSkills(temp.dir, 200);
      const big = await SkillCatalog.load({ roots: ['skills'], cwd: temp.dir });
      expect(big.skills).toHaveLength(200);
      const full = big.prompt({ maxChars: Number.MAX_SAFE_INTEGER });
      expect(full.length).toBeGreaterThan(40_000);
      const capped = big.prompt({ maxChars: 36_000 });
      expect(capped.length).toBeLessThanOrEqual(36_000);
      // At this cap every skill still fits, with shortened descriptions.
      expect(capped.match(/<skill>/g)).toHaveLength(200);
      expect(capped).toContain('…</description>');
      const tight = big.prompt({ maxChars: 12_000 });
      expect(tight.length).toBeLessThanOrEqual(12_000);
      const listed = tight.match(/<skill>/g)?.length ?? 0;
      expect(listed).toBeGreaterThan(20);
      expect(listed).toBeLessThan(200);
      // The rest are named, without descriptions or locations: the model can still ask for any of them.
      expect(tight).toContain(`${200 - listed} more skills, by name only`);
      for (const skill of big.skills) expect(tight).toContain(skill.name);
      expect(tight).not.toContain('<location>');
      // Preferred (intent-ranked) skills are listed first when skills must be dropped.
      const preferred = big.prompt({ maxChars: 12_000, prefer: ['skill-199-rust'] });
      expect(preferred.indexOf('skill-199-rust')).toBeGreaterThan(0);
      expect(preferred.indexOf('skill-199-rust')).toBeLessThan(preferred.indexOf('skill-000-docker'));
    } finally {
      await temp.cleanup();
    }
  });

  it('read_skill returns the body with its references and scripts', async () => {
    const tool = createReadSkillTool(catalog);
    const result = await tool.execute({ name: 'pdf-forms' }, toolContext({ cwd: project }));
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('# PDF forms');
    expect(text).toContain('references/forms.md: Filling in fillable form fields');
    expect(text).toContain(join(project, '.plaited/skills/pdf-forms/scripts/fill_form.py'));
    const reference = await tool.execute({ name: 'pdf-forms', path: 'references/ocr.md' }, toolContext({ cwd: project }));
    expect(textOf(reference)).toContain('tesseract');
  });

  it('read_skill reads a 3 GiB reference up to skills.maxFileBytes, saying it was cut', async () => {
    const { dir, cleanup } = await tempDir('skill-huge-reference');
    try {
      const skill = join(dir, '.plaited/skills/huge-ref');
      await mkdir(join(skill, 'references'), { recursive: true });
      await writeFile(join(skill, 'SKILL.md'), '---\nname: huge-ref\ndescription: A skill with a huge reference\n---\n\nSee [the manual](references/manual.md).\n');
      await writeFile(join(skill, 'references/manual.md'), '# The manual\n\nTurn the crank twice.\n');
      // Sparse: 3 GiB of size and no disk. Read whole, it failed ("greater than 2 GiB").
      await truncate(join(skill, 'references/manual.md'), 3 * 1024 ** 3);
      const huge = await SkillCatalog.load({ cwd: dir, roots: ['.plaited/skills'], maxFileBytes: 4096 });
      expect(huge.get('huge-ref')?.references.map((ref) => ref.text)).toEqual(['the manual']);
      const read = await huge.read('huge-ref', 'references/manual.md');
      expect(read.text).toContain('Turn the crank twice.');
      expect(read.text.endsWith('[truncated at 4096 bytes]')).toBe(true);
      expect(read.text.length).toBeLessThan(4200);
    } finally {
      await cleanup();
    }
  });

  it('read_skill refuses names and paths outside the catalog', async () => {
    const tool = createReadSkillTool(catalog);
    const context = toolContext({ cwd: project });
    const attempts = [
      { name: 'missing-description' },
      { name: '../../secret.txt' },
      { name: 'pdf-forms', path: '../../../secret.txt' },
      { name: 'pdf-forms', path: join(project, 'secret.txt') },
      { name: 'pdf-forms', path: 'references/../../git-release/SKILL.md' },
      { name: 'pdf-forms', path: 'references/ignored.md' },
    ];
    for (const args of attempts) {
      const result = await tool.execute(args, context);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result)).not.toContain('never return it');
    }
    expect(tool.validate({ path: 'x' }).ok).toBe(false);
  });

  it('finds a reference by a paraphrased intent through the hybrid index', async () => {
    const ocr = await catalog.searchReferences('extract words from a photographed page', { limit: 3 });
    expect(ocr[0]?.reference.relativePath).toBe('references/ocr.md');
    expect(ocr[0]?.skill).toBe('pdf-forms');
    const changelog = await catalog.searchReferences('document what changed in the next version', { limit: 3 });
    expect(changelog[0]?.reference.relativePath).toBe('references/changelog.md');
    const forms = await catalog.searchReferences('complete the input fields of a form', { limit: 3 });
    expect(forms[0]?.reference.relativePath).toBe('references/forms.md');
  });

  it('with matchOnly, finds the paraphrased reference but nothing for an unrelated request', async () => {
    const ocr = await catalog.searchReferences('extract words from a photographed page', { matchOnly: true });
    expect(ocr[0]?.reference.relativePath).toBe('references/ocr.md');
    expect(await catalog.searchReferences('what is the weather in Paris tomorrow', { matchOnly: true })).toEqual([]);
  });
});
