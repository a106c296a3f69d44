import { readdir, realpath, stat, writeFile } from 'node:fs/promises';
import { join, posix, relative, resolve, sep } from 'node:path';
import type { IndexDocument, SearchIndex, SyncReport } from '../retrieval/search-index.js';
import { readTextHead, type TextHead } from '../storage/read-text-head.js';
import { isWithin } from '../tools/workspace-path.js';
import { openRegularFile, writeRegularFile } from '../tools/open-regular-file.js';
import { ContextError } from './context-error.js';
import { bestSnippet } from './memory-snippet.js';
import { extractWikiLinks, pageKey } from './wikilinks.js';
import { ensureFolderAsync } from '../storage/ensure-folder.js';

/**
 * The memory wiki: a folder of markdown pages the agent keeps across sessions, plus three
 * support files — `index.md` (a rendered table of contents), `log.md` (append-only
 * journal) and `relationships.jsonl` (typed edges between pages, one JSON object a line).
 * Pages are searched through the hybrid index; the index is re-synced lazily, after a
 * write here or after `markStale()` (the extension calls it when a tool touched the folder).
 */
export const SUPPORT_FILES = { index: 'index.md', log: 'log.md', relationships: 'relationships.jsonl' } as const;

/** A page is read (searched, linted, opened) up to this many bytes: a 200 MB page must not take gigabytes. */
export const MEMORY_PAGE_MAX_BYTES = 1024 * 1024;
/** relationships.jsonl is read (linted, deduplicated) up to this many bytes. */
const MAX_RELATIONSHIPS_BYTES = 16 * 1024 * 1024;

export interface MemoryPage {
  /** Path relative to the wiki folder, with `/` separators. */
  path: string;
  /** The page's first heading, or its file name. */
  title: string;
  text: string;
}

export interface Relationship {
  from: string;
  to: string;
  type: string;
  note?: string;
  at?: string;
}

export type LintCode = 'missing-support-file' | 'broken-wikilink' | 'malformed-edge' | 'dangling-edge' | 'oversized-page' | 'unreadable-page';

export interface LintIssue {
  code: LintCode;
  /** The file the problem is in (relative to the wiki folder). */
  path: string;
  line?: number;
  message: string;
}

export interface MemorySearchHit {
  path: string;
  title: string;
  score: number;
  /** 1-based line where the snippet starts, for a follow-up `memory_get`. */
  line: number;
  snippet: string;
}

export interface MemoryWindow {
  path: string;
  /** 1-based, inclusive. */
  from: number;
  to: number;
  totalLines: number;
  text: string;
}

export interface MemoryWikiOptions {
  /** The wiki folder (absolute, or relative to the process cwd). */
  dir: string;
  index?: SearchIndex;
  /** Index namespace; default `memory:<dir>`. */
  namespace?: string;
  now?(): Date;
}

const SKIP = new Set(['node_modules', '.git']);
const MAX_GET_LINES = 400;
/** A line longer than this is cut in `get` (as read_file cuts lines). */
const MAX_LINE_CHARS = 2000;
/** `get` returns at most about this many characters; the rest is a `from` away. */
const MAX_GET_CHARS = 64_000;

export class MemoryWiki {
  readonly dir: string;
  readonly namespace: string;
  private readonly index: SearchIndex | undefined;
  private readonly now: () => Date;
  private stale = true;
  /** The pages (path, mtime, size) the index was last synced with: a page edited, added or deleted outside the agent re-syncs. */
  private syncedStamp: string | undefined;

  constructor(options: MemoryWikiOptions) {
    this.dir = resolve(options.dir);
    this.index = options.index;
    this.namespace = options.namespace ?? `memory:${this.dir}`;
    this.now = options.now ?? (() => new Date());
  }

  /** Creates whichever support files are missing; returns the ones created. */
  async ensureSupportFiles(): Promise<string[]> {
    await ensureFolderAsync(this.dir);
    const initial: Record<string, string> = {
      [SUPPORT_FILES.index]: '# Memory index\n',
      [SUPPORT_FILES.log]: '# Memory log\n',
      [SUPPORT_FILES.relationships]: '',
    };
    const created: string[] = [];
    for (const [name, text] of Object.entries(initial)) {
      try {
        await writeFile(join(this.dir, name), text, { flag: 'wx' });
        created.push(name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return created;
  }

  /** Every markdown page, support files excluded, sorted by path. */
  async pages(): Promise<MemoryPage[]> {
    const pages: MemoryPage[] = [];
    for (const path of await this.markdownFiles()) {
      if (path === SUPPORT_FILES.index || path === SUPPORT_FILES.log) continue;
      // One page that cannot be read is left out (wiki_lint names it), not the whole memory.
      const head = await this.readPage(path).catch(() => undefined);
      if (!head) continue;
      const { text } = head;
      pages.push({ path, title: /^#\s+(.+)$/m.exec(text)?.[1].trim() ?? posix.basename(path, '.md'), text });
    }
    return pages;
  }

  /** A page's text up to MEMORY_PAGE_MAX_BYTES. */
  private readPage(path: string): Promise<TextHead> {
    return readTextHead(join(this.dir, path), MEMORY_PAGE_MAX_BYTES);
  }

  /** Makes the index hold exactly the current pages. */
  async sync(): Promise<SyncReport | undefined> {
    if (!this.index) return undefined;
    const stamp = await this.stamp();
    const documents: IndexDocument[] = (await this.pages()).map((page) => ({
      id: `memory:${this.namespace}:${page.path}`,
      kind: 'memory',
      namespace: this.namespace,
      fields: { name: page.title, title: page.path.replace(/\.md$/, '').replace(/[/_-]+/g, ' '), body: page.text },
      payload: { path: page.path },
    }));
    const report = await this.index.sync(this.namespace, documents);
    this.stale = false;
    this.syncedStamp = stamp;
    return report;
  }

  /** The next search re-syncs the index first (pages changed behind the wiki's back). */
  markStale(): void {
    this.stale = true;
  }

  async search(query: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<MemorySearchHit[]> {
    if (!this.index || !query.trim()) return [];
    // Pages change behind the agent's back too (the user's editor, a git pull, an `rm`): a long-lived
    // agent searched the pages of its first search for good.
    if (this.stale || (await this.stamp()) !== this.syncedStamp) await this.sync();
    const hits = await this.index.search(query, { kinds: ['memory'], namespaces: [this.namespace], limit: options.limit ?? 5, signal: options.signal });
    return hits.map((hit) => {
      const path = (hit.document.payload as { path: string }).path;
      const snippet = bestSnippet(hit.document.fields.body ?? '', query);
      return { path, title: hit.document.fields.name, score: hit.score, line: snippet.line, snippet: snippet.text };
    });
  }

  /** A bounded window of a file in the wiki (`from` 1-based, at most 400 lines). */
  async get(path: string, options: { from?: number; lines?: number } = {}): Promise<MemoryWindow> {
    const file = this.resolveInside(path);
    const real = await realpath(file).catch(() => file);
    if (!isWithin(real, await realpath(this.dir).catch(() => this.dir))) {
      throw new ContextError('path-outside-root', `"${path}" leads outside the memory folder (to ${real}); memory_get reads the wiki's own pages`, { details: { path, dir: this.dir } });
    }
    let head: TextHead;
    try {
      head = await readTextHead(file, MEMORY_PAGE_MAX_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ContextError('not-found', `no memory file "${path}"`, { details: { path } });
      throw error;
    }
    const all = head.text.split(/\r?\n/);
    if (all.length > 1 && all[all.length - 1] === '') all.pop();
    const from = Math.max(1, Math.floor(options.from ?? 1));
    const count = Math.min(MAX_GET_LINES, Math.max(1, Math.floor(options.lines ?? 100)));
    // Lines cut as read_file cuts them, and the window closed at MAX_GET_CHARS: one 1 MiB line (a
    // pasted log, minified JSON) went to the model whole.
    const slice: string[] = [];
    let used = 0;
    for (const line of all.slice(from - 1, from - 1 + count)) {
      const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]` : line;
      if (slice.length > 0 && used + cut.length > MAX_GET_CHARS) break;
      slice.push(cut);
      used += cut.length + 1;
    }
    const to = from + slice.length - 1;
    const cut = head.truncated && to >= all.length ? `\n[the page is ${head.size} bytes and memory reads its first ${MEMORY_PAGE_MAX_BYTES}: the rest is not read; split the page]` : '';
    return { path: this.relativePath(file), from, to, totalLines: all.length, text: slice.join('\n') + cut };
  }

  /** Appends a dated entry to `log.md`; returns the entry as written. */
  async appendLog(entry: { title: string; text?: string }): Promise<string> {
    await this.ensureSupportFiles();
    const stamp = this.now().toISOString().slice(0, 16).replace('T', ' ');
    const written = `\n## [${stamp}] ${entry.title.trim()}\n${entry.text?.trim() ? `\n${entry.text.trim()}\n` : ''}`;
    await writeRegularFile(join(this.dir, SUPPORT_FILES.log), written, 'append');
    this.stale = true;
    return written;
  }

  /** Appends edges not already recorded (same from|to|type); returns what was added. */
  async recordRelationships(edges: readonly Relationship[]): Promise<{ added: Relationship[]; duplicates: number }> {
    await this.ensureSupportFiles();
    const { edges: existing } = await this.relationships();
    const seen = new Set(existing.map(edgeKey));
    const added: Relationship[] = [];
    let duplicates = 0;
    for (const edge of edges) {
      const clean: Relationship = { from: edge.from.trim(), to: edge.to.trim(), type: edge.type.trim() };
      if (!clean.from || !clean.to || !clean.type) throw new ContextError('invalid-argument', 'a relationship needs non-empty from, to and type', { details: { edge } });
      if (edge.note) clean.note = edge.note;
      if (seen.has(edgeKey(clean))) {
        duplicates++;
        continue;
      }
      seen.add(edgeKey(clean));
      added.push({ ...clean, at: this.now().toISOString() });
    }
    if (added.length) {
      const file = join(this.dir, SUPPORT_FILES.relationships);
      const { size } = await stat(file);
      const last = size > 0 ? (await readTextTail(file)) : '';
      const separator = last && !last.endsWith('\n') ? '\n' : '';
      await writeRegularFile(file, separator + added.map((edge) => JSON.stringify(edge)).join('\n') + '\n', 'append');
    }
    return { added, duplicates };
  }

  /** The recorded edges, and the lines that are not valid edges. */
  async relationships(): Promise<{ edges: Relationship[]; malformed: Array<{ line: number; reason: string }> }> {
    const { edges, malformed } = await this.readEdges();
    return { edges: edges.map(({ edge }) => edge), malformed };
  }

  /** `relationships.jsonl` line by line: each valid edge with its 1-based line, and the lines that are not edges. */
  private async readEdges(): Promise<{ edges: Array<{ edge: Relationship; line: number }>; malformed: Array<{ line: number; reason: string }> }> {
    let text = '';
    try {
      ({ text } = await readTextHead(join(this.dir, SUPPORT_FILES.relationships), MAX_RELATIONSHIPS_BYTES));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const edges: Array<{ edge: Relationship; line: number }> = [];
    const malformed: Array<{ line: number; reason: string }> = [];
    text.split(/\r?\n/).forEach((raw, index) => {
      if (!raw.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        malformed.push({ line: index + 1, reason: 'not valid JSON' });
        return;
      }
      const edge = value as Partial<Relationship> | null;
      if (!edge || typeof edge !== 'object' || Array.isArray(edge) || [edge.from, edge.to, edge.type].some((field) => typeof field !== 'string' || !field.trim())) {
        malformed.push({ line: index + 1, reason: 'needs string "from", "to" and "type"' });
        return;
      }
      edges.push({ edge: edge as Relationship, line: index + 1 });
    });
    return { edges, malformed };
  }

  /** Missing support files, `[[links]]` to no page, malformed edges, edges to no page. */
  async lint(): Promise<LintIssue[]> {
    const issues: LintIssue[] = [];
    for (const name of Object.values(SUPPORT_FILES)) {
      if (!(await exists(join(this.dir, name)))) issues.push({ code: 'missing-support-file', path: name, message: `support file ${name} is missing (wiki_update_index or wiki_append_log creates it)` });
    }
    const files = await this.markdownFiles();
    const keys = pageKeys(files);
    for (const path of files) {
      let head: TextHead;
      try {
        head = await this.readPage(path);
      } catch (error) {
        issues.push({ code: 'unreadable-page', path, message: `cannot read the page (${(error as Error).message}); it is left out of memory_search` });
        continue;
      }
      const { text } = head;
      if (head.truncated) issues.push({ code: 'oversized-page', path, message: `the page is ${head.size} bytes: only its first ${MEMORY_PAGE_MAX_BYTES} bytes are searched and read; split it` });
      for (const link of extractWikiLinks(text)) {
        if (!keys.has(pageKey(link.page))) issues.push({ code: 'broken-wikilink', path, line: link.line, message: `[[${link.page}]] links to no page` });
      }
    }
    const { edges, malformed } = await this.readEdges();
    for (const bad of malformed) issues.push({ code: 'malformed-edge', path: SUPPORT_FILES.relationships, line: bad.line, message: `malformed edge: ${bad.reason}` });
    for (const { edge, line } of edges) {
      const missing = [edge.from, edge.to].filter((end) => !keys.has(pageKey(end)));
      if (missing.length) {
        issues.push({ code: 'dangling-edge', path: SUPPORT_FILES.relationships, line, message: `edge ${edge.from} -[${edge.type}]-> ${edge.to} names no page: ${missing.join(', ')}` });
      }
    }
    return issues;
  }

  /** The index page text: every page with its title and first sentence, by path. */
  async renderIndex(): Promise<string> {
    const pages = await this.pages();
    const lines = ['# Memory index', '', `${pages.length} page${pages.length === 1 ? '' : 's'}.`, ''];
    for (const page of pages) {
      const summary = summaryOf(page.text);
      lines.push(`- [${page.title}](${encodeURI(page.path)})${summary ? ` — ${summary}` : ''}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** Writes `renderIndex()` to `index.md`. */
  async writeIndex(): Promise<string> {
    await this.ensureSupportFiles();
    const text = await this.renderIndex();
    await writeRegularFile(join(this.dir, SUPPORT_FILES.index), text);
    return text;
  }

  /** True when `path` (absolute or relative to the project) is inside the wiki folder. */
  contains(path: string): boolean {
    return isWithin(resolve(path), this.dir);
  }

  private resolveInside(path: string): string {
    const file = resolve(this.dir, path);
    if (file === this.dir || !isWithin(file, this.dir)) {
      throw new ContextError('path-outside-root', `"${path}" is outside the memory folder`, { details: { path, dir: this.dir } });
    }
    return file;
  }

  private relativePath(file: string): string {
    return relative(this.dir, file).split(sep).join('/');
  }

  /** Each page's path, mtime and size: what decides whether the index still holds the pages. */
  private async stamp(): Promise<string> {
    const files = await this.markdownFiles();
    const stamps = await Promise.all(
      files.map((path) =>
        stat(join(this.dir, path)).then(
          (info) => `${path}:${info.mtimeMs}:${info.size}`,
          () => `${path}:gone`,
        ),
      ),
    );
    return stamps.join('\n');
  }

  private async markdownFiles(): Promise<string[]> {
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue;
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && entry.name.endsWith('.md')) found.push(this.relativePath(full));
      }
    };
    await walk(this.dir);
    return found.sort();
  }
}

/** A page is found by its path without `.md` and by its file name, both as page keys. */
function pageKeys(files: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const path of files) {
    keys.add(pageKey(path));
    keys.add(pageKey(posix.basename(path)));
  }
  return keys;
}

function edgeKey(edge: Relationship): string {
  return `${edge.from}|${edge.to}|${edge.type}`;
}

function summaryOf(text: string): string {
  const paragraph = text
    .split(/\r?\n\s*\r?\n/)
    .map((block) => block.trim())
    .find((block) => block && !block.startsWith('#') && !block.startsWith('---'));
  if (!paragraph) return '';
  const sentence = paragraph.replace(/\s+/g, ' ').split(/(?<=[.!?])\s/)[0];
  return sentence.length > 160 ? `${sentence.slice(0, 159)}…` : sentence;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The last byte of a file as text (whether it ends a line), without reading the rest. */
async function readTextTail(file: string): Promise<string> {
  const handle = await openRegularFile(file, 'read');
  try {
    const { size } = await handle.stat();
    const byte = Buffer.alloc(1);
    const { bytesRead } = await handle.read(byte, 0, 1, Math.max(0, size - 1));
    return byte.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}
