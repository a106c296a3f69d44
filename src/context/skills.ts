import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseFrontmatter } from './frontmatter.js';
import { extractMarkdownLinks, isLocalTarget, localPath } from './markdown-links.js';
import { readTextHead } from '../storage/read-text-head.js';

/**
 * Loads Agent Skills: folders holding a `SKILL.md` whose YAML frontmatter carries
 * `name` and `description` (plus optional `license`, `compatibility`, `metadata`,
 * `allowed-tools`). Nothing here throws on bad input: an invalid, oversized or
 * duplicate skill is skipped and reported as a diagnostic, so one broken folder never
 * takes the others down.
 */
export interface SkillReference {
  /** The link text in SKILL.md: what the reference is indexed by. */
  text: string;
  /** Absolute path of the linked file. */
  path: string;
  /** Path relative to the skill folder (`references/oauth.md`). */
  relativePath: string;
  /** Line of the link in SKILL.md. */
  line: number;
}

export interface Skill {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata: Record<string, string>;
  allowedTools: string[];
  /** Absolute path of the SKILL.md file. */
  location: string;
  /** Absolute path of the skill folder. */
  dir: string;
  /** The configured root it was found under. */
  root: string;
  /** SKILL.md without its frontmatter. */
  body: string;
  /** Files under `references/` that the body links to. */
  references: SkillReference[];
  /** Files under `scripts/`, relative to the skill folder, for the model to run through bash. */
  scripts: string[];
  /** Every file in the skill folder, relative to it: what `read_skill` may open. */
  files: string[];
}

export type SkillDiagnosticCode =
  | 'invalid-frontmatter'
  | 'invalid-name'
  | 'invalid-description'
  | 'invalid-field'
  | 'name-mismatch'
  | 'oversized'
  | 'duplicate'
  | 'denied'
  | 'broken-reference'
  | 'unreadable';

export interface SkillDiagnostic {
  level: 'error' | 'warning';
  code: SkillDiagnosticCode;
  /** The file or folder concerned. */
  path: string;
  message: string;
}

export interface LoadSkillsOptions {
  /** Folders to scan; relative ones resolve against `cwd`, `~/` against the home folder. */
  roots: readonly string[];
  cwd: string;
  /** A SKILL.md larger than this is skipped (default 131,072). */
  maxFileBytes?: number;
  /** When non-empty, only these names load. Glob `*` allowed. */
  allow?: readonly string[];
  /** Names never loaded; wins over `allow`. Glob `*` allowed. */
  deny?: readonly string[];
}

export interface LoadSkillsResult {
  skills: Skill[];
  diagnostics: SkillDiagnostic[];
}

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;
/** How deep below a root a skill folder may sit (`root/group/skill/SKILL.md`). */
const MAX_DEPTH = 3;
/** Files listed per skill; a skill with node_modules inside should not stall loading. */
const MAX_FILES = 500;
const SKIP_DIRS = new Set(['node_modules', '.git']);

export async function loadSkills(options: LoadSkillsOptions): Promise<LoadSkillsResult> {
  const maxFileBytes = options.maxFileBytes ?? 131_072;
  const skills: Skill[] = [];
  const diagnostics: SkillDiagnostic[] = [];
  const byName = new Map<string, Skill>();
  for (const rootSpec of options.roots) {
    const root = resolveRoot(rootSpec, options.cwd);
    const files = await findSkillFiles(root);
    // Read in parallel, decide in order: diagnostics and duplicate resolution stay deterministic.
    const results = await Promise.all(
      files.map(async (skillFile) => {
        const own: SkillDiagnostic[] = [];
        return { skillFile, own, loaded: await loadSkill(skillFile, root, maxFileBytes, own) };
      }),
    );
    for (const { skillFile, own, loaded } of results) {
      diagnostics.push(...own);
      if (!loaded) continue;
      if (!nameAllowed(loaded.name, options.allow ?? [], options.deny ?? [])) {
        diagnostics.push({ level: 'warning', code: 'denied', path: skillFile, message: `skill "${loaded.name}" is excluded by skills.allow/deny` });
        continue;
      }
      const existing = byName.get(loaded.name);
      if (existing) {
        // Roots are in priority order: the first one wins, as a project's .plaited/skills shadows .claude/skills.
        diagnostics.push({ level: 'warning', code: 'duplicate', path: skillFile, message: `skill "${loaded.name}" is already loaded from ${existing.location}; this copy is skipped` });
        continue;
      }
      byName.set(loaded.name, loaded);
      skills.push(loaded);
    }
  }
  return { skills, diagnostics };
}

export function resolveRoot(root: string, cwd: string): string {
  if (root === '~') return homedir();
  if (root.startsWith('~/')) return join(homedir(), root.slice(2));
  return isAbsolute(root) ? root : resolve(cwd, root);
}

/** `*` matches any run of characters; everything else is literal. */
export function matchesGlob(name: string, pattern: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
  return regex.test(name);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function nameAllowed(name: string, allow: readonly string[], deny: readonly string[]): boolean {
  if (deny.some((pattern) => matchesGlob(name, pattern))) return false;
  return allow.length === 0 || allow.some((pattern) => matchesGlob(name, pattern));
}

async function findSkillFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // A missing root is normal: most projects have only one of the default roots.
    }
    // Any SKILL.md but a regular file too (a symlink, a folder in its place): loading it follows
    // the link or says why it cannot be read, instead of the skill silently not being there.
    if (entries.some((entry) => entry.name === 'SKILL.md')) {
      found.push(join(dir, 'SKILL.md'));
      return; // A skill's own subfolders (references/, scripts/) are not more skills.
    }
    if (depth >= MAX_DEPTH) return;
    // A symlinked skill folder (`ln -s ~/my-skills/review .claude/skills/review`) is a skill too;
    // the depth bound keeps a link to an ancestor from looping.
    const isFolder = async (entry: Dirent) => entry.isDirectory() || (entry.isSymbolicLink() && (await stat(join(dir, entry.name)).then((info) => info.isDirectory(), () => false)));
    const candidates = entries.filter((entry) => !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.'));
    const subdirs = (await Promise.all(candidates.map(async (entry) => ((await isFolder(entry)) ? entry : undefined)))).filter((entry): entry is Dirent => !!entry);
    subdirs.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of subdirs) await walk(join(dir, entry.name), depth + 1);
  }
  await walk(root, 0);
  return found;
}

async function loadSkill(file: string, root: string, maxFileBytes: number, diagnostics: SkillDiagnostic[]): Promise<Skill | undefined> {
  const dir = dirname(file);
  let text: string;
  try {
    const info = await stat(file);
    if (info.size > maxFileBytes) {
      diagnostics.push({ level: 'error', code: 'oversized', path: file, message: `SKILL.md is ${info.size} bytes, over skills.maxFileBytes (${maxFileBytes}); skipped` });
      return undefined;
    }
    // UTF-16 with a byte order mark too (read as UTF-8 it was "missing YAML frontmatter").
    ({ text } = await readTextHead(file, maxFileBytes));
  } catch (error) {
    diagnostics.push({ level: 'error', code: 'unreadable', path: file, message: `cannot read SKILL.md: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = await parseFrontmatter(text);
  if (!parsed.ok) {
    diagnostics.push({ level: 'error', code: 'invalid-frontmatter', path: file, message: parsed.error });
    return undefined;
  }
  const { data } = parsed;
  const fail = (code: SkillDiagnosticCode, message: string): undefined => {
    diagnostics.push({ level: 'error', code, path: file, message });
    return undefined;
  };
  const name = data.name;
  if (typeof name !== 'string' || !name) return fail('invalid-name', 'frontmatter "name" is required and must be a string');
  if (name.length > MAX_NAME || !NAME.test(name)) {
    return fail('invalid-name', `name "${name}" must be 1-${MAX_NAME} lowercase letters, digits and single hyphens, not starting or ending with a hyphen`);
  }
  const description = data.description;
  if (typeof description !== 'string' || !description.trim()) return fail('invalid-description', 'frontmatter "description" is required and must be a non-empty string');
  if (description.length > MAX_DESCRIPTION) return fail('invalid-description', `description is ${description.length} characters, over ${MAX_DESCRIPTION}`);
  const optionalString = (key: string, max?: number): string | undefined | null => {
    const value = data[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || (max !== undefined && value.length > max)) {
      fail('invalid-field', `"${key}" must be a string${max ? ` of at most ${max} characters` : ''}`);
      return null;
    }
    return value;
  };
  const license = optionalString('license');
  const compatibility = optionalString('compatibility', MAX_COMPATIBILITY);
  if (license === null || compatibility === null) return undefined;
  const metadata = stringMap(data.metadata);
  if (metadata === undefined) return fail('invalid-field', '"metadata" must be a mapping of string keys to string values');
  const allowedTools = toolList(data['allowed-tools']);
  if (allowedTools === undefined) return fail('invalid-field', '"allowed-tools" must be a space-delimited string or a list of strings');
  if (basename(dir) !== name) {
    // The spec asks for a match; many published skills get it wrong, so warn and keep the skill.
    diagnostics.push({ level: 'warning', code: 'name-mismatch', path: file, message: `name "${name}" does not match its folder "${basename(dir)}"` });
  }
  const files = await listFiles(dir);
  const fileSet = new Set(files);
  const references: SkillReference[] = [];
  for (const link of extractMarkdownLinks(parsed.body)) {
    if (!isLocalTarget(link.target)) continue;
    const target = resolve(dir, localPath(link.target));
    const relativePath = toPosix(relative(dir, target));
    if (!relativePath.startsWith('references/')) continue;
    if (!fileSet.has(relativePath)) {
      diagnostics.push({ level: 'warning', code: 'broken-reference', path: file, message: `line ${link.line + parsed.bodyStartLine - 1}: linked reference ${link.target} does not exist` });
      continue;
    }
    if (references.some((ref) => ref.relativePath === relativePath && ref.text === link.text)) continue;
    references.push({ text: link.text || relativePath, path: target, relativePath, line: link.line + parsed.bodyStartLine - 1 });
  }
  return {
    name,
    description: description.trim(),
    ...(license !== undefined ? { license } : {}),
    ...(compatibility !== undefined ? { compatibility } : {}),
    metadata,
    allowedTools,
    location: file,
    dir,
    root,
    body: parsed.body,
    references,
    scripts: files.filter((path) => path.startsWith('scripts/')),
    files,
  };
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') out[key] = entry;
    else if (typeof entry === 'number' || typeof entry === 'boolean') out[key] = String(entry);
    else return undefined;
  }
  return out;
}

function toolList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(current: string): Promise<void> {
    if (out.length >= MAX_FILES) return;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (out.length >= MAX_FILES) return;
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) await walk(full);
      } else if (entry.isFile()) {
        out.push(toPosix(relative(dir, full)));
      }
    }
  }
  await walk(dir);
  return out;
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
