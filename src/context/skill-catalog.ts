import { isAbsolute, join, posix } from 'node:path';
import type { SearchIndex, SyncReport, IndexDocument } from '../retrieval/search-index.js';
import { displayPath } from '../tools/resolve-tool-path.js';
import { readTextHead } from '../storage/read-text-head.js';
import { ContextError } from './context-error.js';
import { searchMatching } from './intent-match.js';
import { firstMarkdownHeading } from './markdown-heading.js';
import { loadSkills, type LoadSkillsOptions, type Skill, type SkillDiagnostic, type SkillReference } from './skills.js';

/**
 * The loaded skills of one project, and everything the model may do with them:
 * a compact catalog for the system prompt, reading a skill (only from this catalog),
 * and finding a skill's references by intent through the hybrid index.
 */
export interface ReferenceHit {
  skill: string;
  reference: SkillReference;
  score: number;
}

export interface SkillReadResult {
  skill: Skill;
  /** The relative path read; absent when the SKILL.md body was read. */
  path?: string;
  text: string;
}

export interface SkillCatalogOptions {
  skills: readonly Skill[];
  diagnostics?: readonly SkillDiagnostic[];
  /** The hybrid index references (and skills) are searched in; without one, search finds nothing. */
  index?: SearchIndex;
  /** Index namespace of this catalog; one per project. */
  namespace?: string;
  /** Paths in the prompt are shown relative to this folder. */
  cwd?: string;
  /** Largest file `read` returns (default 131,072 bytes). */
  maxFileBytes?: number;
}

/** Below this many characters a description stops saying anything useful. */
const MIN_DESCRIPTION = 40;

export class SkillCatalog {
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly SkillDiagnostic[];
  readonly namespace: string;
  private readonly byName: Map<string, Skill>;
  private readonly index: SearchIndex | undefined;
  private readonly cwd: string | undefined;
  private readonly maxFileBytes: number;

  constructor(options: SkillCatalogOptions) {
    this.skills = options.skills;
    this.diagnostics = options.diagnostics ?? [];
    this.index = options.index;
    this.namespace = options.namespace ?? 'skills';
    this.cwd = options.cwd;
    this.maxFileBytes = options.maxFileBytes ?? 131_072;
    this.byName = new Map(options.skills.map((skill) => [skill.name, skill]));
  }

  /** Loads skills from disk and indexes them (when an index is given). */
  static async load(options: LoadSkillsOptions & { index?: SearchIndex; namespace?: string }): Promise<SkillCatalog> {
    const { skills, diagnostics } = await loadSkills(options);
    const catalog = new SkillCatalog({
      skills,
      diagnostics,
      index: options.index,
      namespace: options.namespace ?? `skills:${options.cwd}`,
      cwd: options.cwd,
      maxFileBytes: options.maxFileBytes,
    });
    await catalog.sync();
    return catalog;
  }

  get(name: string): Skill | undefined {
    return this.byName.get(name);
  }

  /**
   * Makes the index hold exactly this catalog's skills and references. A reference is
   * indexed by its link text (the author's own summary of when to open it), with the
   * linked file's first heading and the skill's description as context.
   */
  async sync(): Promise<SyncReport | undefined> {
    if (!this.index) return undefined;
    const documents: IndexDocument[] = [];
    for (const skill of this.skills) {
      documents.push({
        id: `skill:${this.namespace}:${skill.name}`,
        kind: 'skill',
        namespace: this.namespace,
        fields: { name: skill.name, description: skill.description },
        payload: { skill: skill.name },
      });
      for (const reference of skill.references) {
        documents.push({
          id: `reference:${this.namespace}:${skill.name}:${reference.relativePath}#${reference.text}`,
          kind: 'reference',
          namespace: this.namespace,
          fields: {
            name: reference.text,
            title: await firstHeading(reference.path),
            group: `${skill.name}: ${skill.description}`,
          },
          payload: { skill: skill.name, relativePath: reference.relativePath, text: reference.text },
        });
      }
    }
    return this.index.sync(this.namespace, documents);
  }

  /**
   * References ranked for the intent by their link text, best first. With `matchOnly`,
   * only references that really match (a shared word, or dense similarity of at least
   * `minSimilarity`) are returned, so an unrelated request finds none.
   */
  async searchReferences(
    intent: string,
    options: { limit?: number; signal?: AbortSignal; matchOnly?: boolean; minSimilarity?: number } = {},
  ): Promise<ReferenceHit[]> {
    if (!this.index || !intent.trim()) return [];
    const search = { kinds: ['reference'], namespaces: [this.namespace], limit: options.limit ?? 5, signal: options.signal };
    const hits = options.matchOnly
      ? await searchMatching(this.index, intent, { ...search, minSimilarity: options.minSimilarity })
      : await this.index.search(intent, search);
    const found: ReferenceHit[] = [];
    for (const hit of hits) {
      const payload = hit.document.payload as { skill?: string; relativePath?: string; text?: string } | undefined;
      const skill = payload?.skill ? this.byName.get(payload.skill) : undefined;
      const reference = skill?.references.find((ref) => ref.relativePath === payload?.relativePath && ref.text === payload?.text);
      if (skill && reference) found.push({ skill: skill.name, reference, score: hit.score });
    }
    return found;
  }

  /** Skill names ranked for the intent; used to decide which entries a full prompt keeps. */
  async searchSkills(intent: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<string[]> {
    if (!this.index || !intent.trim()) return [];
    const hits = await this.index.search(intent, { kinds: ['skill'], namespaces: [this.namespace], limit: options.limit ?? 10, signal: options.signal });
    return hits.map((hit) => (hit.document.payload as { skill?: string } | undefined)?.skill).filter((name): name is string => !!name && this.byName.has(name));
  }

  /**
   * The catalog as the model sees it, never longer than `maxChars`. When everything
   * does not fit, descriptions are shortened first (all skills stay visible); only
   * when even short entries overflow are skills left out, `prefer`red ones last.
   */
  prompt(options: { maxChars: number; prefer?: readonly string[] }): string {
    if (this.skills.length === 0) return '';
    const preferred = (options.prefer ?? []).map((name) => this.byName.get(name)).filter((skill): skill is Skill => !!skill);
    const ordered = [...new Set([...preferred, ...this.skills])];
    const header =
      'Skills hold instructions for specific tasks. When a task matches a skill\'s description, load it with the read_skill tool before acting; its scripts run through bash.\n<available_skills>\n';
    const footer = '</available_skills>';
    // Over the budget the locations go first: read_skill opens a skill by name, and a location
    // (which repeats the name) was a quarter of each entry, so 200 skills listed 65.
    const entries = (limit: number | undefined, location = false): string[] => ordered.map((skill) => this.entry(skill, limit, location));
    const size = (parts: string[]): number => header.length + footer.length + parts.reduce((sum, part) => sum + part.length, 0);
    const full = entries(undefined, true);
    if (size(full) <= options.maxChars) return header + full.join('') + footer;
    const bare = entries(undefined);
    if (size(bare) <= options.maxChars) return header + bare.join('') + footer;
    // Longest description cap that still fits every skill.
    let low = MIN_DESCRIPTION;
    let high = Math.max(...ordered.map((skill) => skill.description.length));
    if (size(entries(low)) <= options.maxChars) {
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (size(entries(middle)) <= options.maxChars) low = middle;
        else high = middle - 1;
      }
      return header + entries(low).join('') + footer;
    }
    const short = entries(MIN_DESCRIPTION);
    // The skills left without an entry are still named, while their names fit: a model cannot open a skill it never heard of.
    const named = (from: number): string => `<!-- ${short.length - from} more skills, by name only (read_skill opens any): ${ordered.slice(from).map((skill) => escapeXml(skill.name)).join(', ')} -->\n`;
    const counted = (from: number): string => `<!-- ${short.length - from} more skills not listed; read_skill accepts any skill name -->\n`;
    const moreNote = header.length + footer.length + named(0).length <= options.maxChars ? named : counted;
    const kept: string[] = [];
    let used = header.length + footer.length;
    for (let i = 0; i < short.length; i++) {
      if (used + short[i].length + (i + 1 < short.length ? moreNote(i + 1).length : 0) > options.maxChars) break;
      kept.push(short[i]);
      used += short[i].length;
    }
    const text = header + kept.join('') + (kept.length < short.length ? moreNote(kept.length) : '') + footer;
    return text.length <= options.maxChars ? text : '';
  }

  private entry(skill: Skill, descriptionLimit: number | undefined, withLocation: boolean): string {
    let description = skill.description.replace(/\s+/g, ' ');
    if (descriptionLimit !== undefined && description.length > descriptionLimit) description = `${description.slice(0, descriptionLimit - 1).trimEnd()}…`;
    const location = this.cwd ? displayPath(skill.location, this.cwd) : skill.location;
    const where = withLocation ? `<location>${escapeXml(location)}</location>` : '';
    return `<skill><name>${escapeXml(skill.name)}</name><description>${escapeXml(description)}</description>${where}</skill>\n`;
  }

  /**
   * Reads a skill's SKILL.md body (no `path`) or one of its files. Only files that were
   * found inside the skill's folder when it loaded can be read: absolute paths, `..`
   * and anything not in the catalog are refused.
   */
  async read(name: string, path?: string): Promise<SkillReadResult> {
    const skill = this.byName.get(name);
    if (!skill) {
      throw new ContextError('not-found', `no skill named "${name}" is loaded`, { details: { name, available: this.skills.map((s) => s.name) } });
    }
    if (path === undefined || path === '' || path === 'SKILL.md') return { skill, text: describeSkill(skill) };
    const normalized = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '');
    if (isAbsolute(path) || normalized.startsWith('../') || normalized === '..' || normalized.startsWith('/')) {
      throw new ContextError('path-outside-root', `"${path}" is outside the skill "${name}"; give a path relative to its folder`, { details: { name, path } });
    }
    if (!skill.files.includes(normalized)) {
      throw new ContextError('not-found', `skill "${name}" has no file "${path}"; its files: ${skill.files.join(', ')}`, { details: { name, path } });
    }
    const { text, truncated } = await readTextHead(join(skill.dir, normalized), this.maxFileBytes);
    if (truncated) return { skill, path: normalized, text: `${text}\n[truncated at ${this.maxFileBytes} bytes]` };
    return { skill, path: normalized, text };
  }
}

/** The SKILL.md body plus where its parts are, so the model can open references and run scripts. */
export function describeSkill(skill: Skill): string {
  const parts = [`# Skill: ${skill.name}\n(folder: ${skill.dir})\n`, skill.body.trim()];
  if (skill.references.length) {
    parts.push(`\nReferences (open with read_skill and a path):\n${skill.references.map((ref) => `- ${ref.relativePath}: ${ref.text}`).join('\n')}`);
  }
  if (skill.scripts.length) {
    parts.push(`\nScripts (run with bash from the skill folder):\n${skill.scripts.map((script) => `- ${join(skill.dir, script)}`).join('\n')}`);
  }
  return parts.join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A reference's heading is looked for in its first 64 KiB. */
const HEADING_MAX_BYTES = 64 * 1024;

/** The first heading of a file; undefined when it has none or cannot be read. */
async function firstHeading(path: string): Promise<string | undefined> {
  try {
    return firstMarkdownHeading((await readTextHead(path, HEADING_MAX_BYTES)).text);
  } catch {
    return undefined;
  }
}
