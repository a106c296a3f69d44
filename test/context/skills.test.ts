import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSkills } from '../../src/context/skills.js';
import { FIXTURES, tempDir } from './context-test-kit.js';

const project = join(FIXTURES, 'skills-project');
const roots = ['.plaited/skills', '.claude/skills', '.agents/skills'];

describe('loadSkills', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  it('loads valid skills from every root, first root winning, with references and scripts', async () => {
    const { skills } = await loadSkills({ roots, cwd: project });
    expect(skills.map((skill) => skill.name)).toEqual(['denied-skill', 'git-release', 'pdf-forms', 'weather-report']);
    const pdf = skills.find((skill) => skill.name === 'pdf-forms');
    expect(pdf?.location).toBe(join(project, '.plaited/skills/pdf-forms/SKILL.md'));
    expect(pdf?.license).toBe('MIT');
    expect(pdf?.metadata).toEqual({ author: 'plaited', version: '1.2' });
    expect(pdf?.allowedTools).toEqual(['bash', 'read_file']);
    // Links in code fences and images are not references.
    expect(pdf?.references.map((ref) => [ref.relativePath, ref.text])).toEqual([
      ['references/forms.md', 'Filling in fillable form fields'],
      ['references/ocr.md', 'Recognising text in scanned images with OCR'],
    ]);
    expect(pdf?.references[0].line).toBe(16);
    expect(pdf?.scripts).toEqual(['scripts/fill_form.py']);
    expect(pdf?.body).not.toContain('name: pdf-forms');
    expect(skills.find((skill) => skill.name === 'weather-report')?.compatibility).toMatch(/network/);
  });

  it('reports invalid, duplicate and broken things as diagnostics instead of throwing', async () => {
    const { diagnostics } = await loadSkills({ roots, cwd: project });
    const summary = diagnostics.map((d) => `${d.level}:${d.code}:${d.path.slice(project.length + 1)}`).sort();
    expect(summary).toEqual([
      'error:invalid-description:.plaited/skills/missing-description/SKILL.md',
      'error:invalid-name:.plaited/skills/bad-name/SKILL.md',
      'warning:broken-reference:.plaited/skills/git-release/SKILL.md',
      'warning:duplicate:.claude/skills/pdf-forms/SKILL.md',
    ]);
  });

  it('applies allow and deny lists by name, deny winning', async () => {
    const denied = await loadSkills({ roots, cwd: project, deny: ['denied-*'] });
    expect(denied.skills.map((skill) => skill.name)).not.toContain('denied-skill');
    expect(denied.diagnostics.some((d) => d.code === 'denied')).toBe(true);
    const allowed = await loadSkills({ roots, cwd: project, allow: ['pdf-forms', 'denied-skill'], deny: ['denied-skill'] });
    expect(allowed.skills.map((skill) => skill.name)).toEqual(['pdf-forms']);
  });

  it('skips an oversized SKILL.md and bad YAML with a diagnostic, keeping the rest', async () => {
    const temp = await tempDir('skills');
    cleanups.push(temp.cleanup);
    const write = async (name: string, text: string) => {
      await mkdir(join(temp.dir, 'skills', name), { recursive: true });
      await writeFile(join(temp.dir, 'skills', name, 'SKILL.md'), text);
    };
    await write('huge', `---\nname: huge\ndescription: too big\n---\n${'x'.repeat(2_000)}`);
    await write('bad-yaml', '---\nname: [unclosed\n---\nbody');
    await write('no-frontmatter', '# Just markdown');
    await write('fine', '---\nname: fine\ndescription: A fine skill.\n---\nbody');
    await write('mismatch', '---\nname: other-name\ndescription: Folder and name differ.\n---\nbody');
    const { skills, diagnostics } = await loadSkills({ roots: ['skills'], cwd: temp.dir, maxFileBytes: 1_000 });
    expect(skills.map((skill) => skill.name).sort()).toEqual(['fine', 'other-name']);
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['invalid-frontmatter', 'invalid-frontmatter', 'name-mismatch', 'oversized']);
  });

  it('a SKILL.md that is a symlink loads through it; a folder, a symlink loop or a named pipe in its place is a diagnostic, not silence (nor a hang)', async () => {
    const temp = await tempDir('skills-odd');
    cleanups.push(temp.cleanup);
    for (const name of ['linked', 'folder', 'loop']) await mkdir(join(temp.dir, 'skills', name), { recursive: true });
    await writeFile(join(temp.dir, 'linked.md'), '---\nname: linked\ndescription: Kept elsewhere, linked in.\n---\nbody');
    await symlink(join(temp.dir, 'linked.md'), join(temp.dir, 'skills', 'linked', 'SKILL.md'));
    await mkdir(join(temp.dir, 'skills', 'folder', 'SKILL.md'));
    await symlink('SKILL.md', join(temp.dir, 'skills', 'loop', 'SKILL.md'));
    await mkdir(join(temp.dir, 'skills', 'pipe'));
    execFileSync('mkfifo', [join(temp.dir, 'skills', 'pipe', 'SKILL.md')]);
    const { skills, diagnostics } = await loadSkills({ roots: ['skills'], cwd: temp.dir });
    expect(skills.map((skill) => skill.name)).toEqual(['linked']);
    expect(diagnostics.map((d) => [d.code, d.path, d.message.split(':')[1]?.trim()])).toEqual([
      ['unreadable', join(temp.dir, 'skills', 'folder', 'SKILL.md'), 'EISDIR'],
      ['unreadable', join(temp.dir, 'skills', 'loop', 'SKILL.md'), 'ELOOP'],
      ['unreadable', join(temp.dir, 'skills', 'pipe', 'SKILL.md'), 'ENOTFILE'],
    ]);
  });

  it('a SKILL.md saved as UTF-16 (with its byte order mark) loads like a UTF-8 one', async () => {
    const temp = await tempDir('skills-utf16');
    cleanups.push(temp.cleanup);
    await mkdir(join(temp.dir, 'skills', 'wide'), { recursive: true });
    const text = '---\nname: wide\ndescription: Saved by a Windows editor as Unicode.\n---\nbody';
    await writeFile(join(temp.dir, 'skills', 'wide', 'SKILL.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const { skills, diagnostics } = await loadSkills({ roots: ['skills'], cwd: temp.dir });
    expect(diagnostics).toEqual([]);
    expect(skills.map((skill) => [skill.name, skill.description])).toEqual([['wide', 'Saved by a Windows editor as Unicode.']]);
  });

  it('treats missing roots as empty', async () => {
    const { skills, diagnostics } = await loadSkills({ roots: ['does/not/exist'], cwd: project });
    expect(skills).toEqual([]);
    expect(diagnostics).toEqual([]);
  });
});
