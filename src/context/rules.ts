import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { IndexDocument, SearchIndex } from '../retrieval/search-index.js';
import { isAgentStatePath } from '../tools/agent-state-path.js';
import { isWithin } from '../tools/workspace-path.js';
import { findGitRoot, type GitRootOptions } from './git-root.js';
import { realOrResolved } from './real-or-resolved.js';
import { searchMatching } from './intent-match.js';
import { firstMarkdownHeading } from './markdown-heading.js';
import { extractMarkdownLinks, isLocalTarget, localPath } from './markdown-links.js';
import { MtimeCache, type CachedFile } from './mtime-cache.js';
import { resolveRoot } from './skills.js';

/**
 * The three tiers of project rules:
 * 1. the root rules file (`AGENTS.md`) is always in the system prompt;
 * 2. files it links to are indexed by their link text and loaded when the turn's intent
 *    matches (a lexical match, or a dense similarity above `minSimilarity`);
 * 3. when a tool touches a file, every rules file between that file and the root applies
 *    for the rest of the turn (the caller keeps the per-turn set; see context-extensions.ts).
 * Files are cached by mtime; `refresh()` drops the cache and re-indexes the links.
 * Above the tiers, `parents()` reads the rules files of the folders from the enclosing git root
 * down to `cwd` (a monorepo's root `AGENTS.md` for a session in `packages/web`).
 */
export interface RuleLink {
  text: string;
  /** Absolute path of the linked file. */
  path: string;
  line: number;
}

export interface RulesOptions {
  cwd: string;
  /** The rules file name, relative to `cwd` (default: {@link defaultRulesFile}); nested files share its base name. */
  file?: string;
  index?: SearchIndex;
  /** Index namespace for the links; default `rules:<cwd>`. */
  namespace?: string;
  /** At most this many linked files per turn (default 3). */
  linkLimit?: number;
  /** Dense similarity above which a link matches without sharing a word (default 0.5). */
  minSimilarity?: number;
  /** Each rules file is read up to this many bytes (default 1 MiB). */
  maxFileBytes?: number;
  /** Told of a rules file that is there but cannot be read as text (it is left out of the prompt). */
  warn?: (message: string) => void;
  /**
   * Folders outside `cwd` a rules file may be in (`agent.allowedRoots`: relative to `cwd`, `~/` for
   * home). A rules file, a linked one or one reached through a symlink, that leads anywhere else is
   * left out: the model cannot read it with `read_file` either.
   */
  allowedRoots?: readonly string[];
  /** Where `parents()` looks for the git root: the home folder it stops below, the user the repository must belong to. */
  gitRoot?: GitRootOptions;
}

export class Rules {
  readonly cwd: string;
  readonly namespace: string;
  /** `rules.file` when configured; otherwise each read picks AGENTS.md or CLAUDE.md as the folder is then. */
  private readonly configuredFile: string | undefined;
  private readonly gitRoot: GitRootOptions | undefined;
  /** The foreign git roots already told about. */
  private readonly toldForeign = new Set<string>();
  private readonly index: SearchIndex | undefined;
  private readonly linkLimit: number;
  private readonly minSimilarity: number;
  private readonly cache: MtimeCache;
  /** The root file version the index holds links for. */
  private indexedVersion: string | undefined;
  private cachedLinks: RuleLink[] = [];
  private readonly allowedRoots: string[];
  private realRoots: Promise<string[]> | undefined;
  private readonly warn: ((message: string) => void) | undefined;
  /** The version (mtime:size) of each non-UTF-8 rules file already told about. */
  private readonly toldNotUtf8 = new Map<string, string>();

  constructor(options: RulesOptions) {
    this.cwd = resolve(options.cwd);
    this.configuredFile = options.file;
    this.gitRoot = options.gitRoot;
    this.index = options.index;
    this.namespace = options.namespace ?? `rules:${this.cwd}`;
    this.linkLimit = options.linkLimit ?? 3;
    this.minSimilarity = options.minSimilarity ?? 0.5;
    this.allowedRoots = [this.cwd, ...(options.allowedRoots ?? []).map((root) => resolveRoot(root, this.cwd))];
    const { warn } = options;
    this.warn = warn;
    // A link in AGENTS.md to a folder is ordinary markdown; a folder named like the rules file is not.
    const skipped = (path: string, why: string) => (why !== 'a folder' || basename(path) === basename(this.rootFile)) && warn?.(`the rules file ${path} is left out of the prompt: ${why}`);
    this.cache = new MtimeCache(options.maxFileBytes, warn && skipped);
  }

  /**
   * The project's rules file, chosen at each read: a project of CLAUDE.md that gets an AGENTS.md
   * reads AGENTS.md from the next turn on, not after a restart.
   */
  get rootFile(): string {
    return this.fileIn(this.cwd);
  }

  private fileIn(folder: string): string {
    return resolve(folder, this.configuredFile ?? defaultRulesFile(folder));
  }

  /** Tier 1: the root rules file, or undefined when the project has none. */
  root(): Promise<CachedFile | undefined> {
    return this.read(this.rootFile);
  }

  /**
   * The rules files of the folders from the enclosing git root down to `cwd` (not included), the
   * root's first. Each must be markdown inside the git root once symlinks are followed, and their links
   * are not followed: only these files, of the rules file's name, are read outside the workspace.
   * None without a git root above `cwd`, or with one of another user (told once).
   */
  async parents(): Promise<CachedFile[]> {
    const found = await findGitRoot(this.cwd, this.gitRoot);
    if (found && 'foreign' in found) {
      if (!this.toldForeign.has(found.foreign)) {
        this.toldForeign.add(found.foreign);
        this.warn?.(`the rules files above ${this.cwd} are not read: ${join(found.foreign, '.git')} belongs to another user (uid ${found.owner}), so it is not taken as your project's root, as git refuses it (safe.directory); only ${this.cwd}'s own rules apply`);
      }
      return [];
    }
    // The root is a real path: the folders up to it are those of the real cwd (it may be opened through a symlink).
    const cwd = await realOrResolved(this.cwd);
    if (!found || found.root === cwd) return [];
    const folders: string[] = [];
    for (let folder = dirname(cwd); isWithin(folder, found.root); folder = dirname(folder)) {
      folders.unshift(folder);
      if (folder === found.root) break;
    }
    const files: CachedFile[] = [];
    for (const folder of folders) {
      const file = await this.read(this.fileIn(folder), found.root);
      if (file) files.push(file);
    }
    return files;
  }

  /**
   * A rules file through the cache, only where file tools may read: inside the project (or an
   * allowed root) once symlinks are followed, and never the agent's own state. A cloned
   * repository's `AGENTS.md` that links to `../../.aws/credentials`, or is a symlink to a key,
   * must not put it into the prompt. A parent folder's file (`repository`, the real git root) is
   * held to its repository, and to markdown.
   */
  private async read(path: string, repository?: string): Promise<CachedFile | undefined> {
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) return this.cache.read(path); // missing, a loop, a link to nowhere: the cache says which
    if (repository !== undefined) {
      // Above the workspace the model reads nothing itself: a parent's file may lead only to markdown
      // of its repository (`packages/AGENTS.md` → `../.env` would send the user's secrets).
      if (!isWithin(real, repository) || !real.toLowerCase().endsWith('.md')) {
        return this.cache.refuse(path, `it leads to ${real}; a rules file above the project is read only as markdown (.md) inside its git repository ${repository}`);
      }
    } else {
      this.realRoots ??= Promise.all(this.allowedRoots.map(realOrResolved));
      if (!(await this.realRoots).some((root) => isWithin(real, root))) {
        return this.cache.refuse(path, `it leads outside the project (to ${real}); rules are read only where file tools may read: add its folder to agent.allowedRoots to use it`);
      }
    }
    if (await isAgentStatePath(real)) return this.cache.refuse(path, "it is the agent's own state, which no tool reads");
    const file = await this.cache.read(path);
    // Latin-1 or Windows-1252 text reads as UTF-8 with holes: sent (the rest is good), and said once per version.
    const version = file?.text.includes('\uFFFD') ? `${file.mtimeMs}:${file.size}` : undefined;
    if (file && version && this.toldNotUtf8.get(path) !== version) {
      this.toldNotUtf8.set(path, version);
      this.warn?.(`the rules file ${path} is not UTF-8: characters it cannot decode reach the model as \uFFFD; save it as UTF-8`);
    }
    return file;
  }

  /** The local files the root rules file links to (existing ones only), re-indexed when it changed. */
  async links(): Promise<RuleLink[]> {
    const root = await this.root();
    // The path too: the file chosen may change (a CLAUDE.md project that gets an AGENTS.md).
    const version = root ? `${root.path}:${root.mtimeMs}:${root.size}` : 'none';
    if (version === this.indexedVersion) return this.cachedLinks;
    const links: RuleLink[] = [];
    const documents: IndexDocument[] = [];
    for (const link of root ? extractMarkdownLinks(root.text) : []) {
      if (!isLocalTarget(link.target)) continue;
      const path = resolve(dirname(root?.path ?? this.rootFile), localPath(link.target));
      if (links.some((known) => known.path === path)) continue;
      const file = await this.read(path);
      if (!file) continue;
      links.push({ text: link.text, path, line: link.line });
      documents.push({
        id: `rule:${this.namespace}:${path}`,
        kind: 'rule',
        namespace: this.namespace,
        fields: { name: link.text || relative(this.cwd, path), title: firstMarkdownHeading(file.text) },
        payload: { path },
      });
    }
    if (this.index) await this.index.sync(this.namespace, documents);
    this.cachedLinks = links;
    this.indexedVersion = version;
    return links;
  }

  /** Tier 2: linked files whose link text matches the intent, best first. */
  async linkedFor(intent: string, options: { signal?: AbortSignal } = {}): Promise<CachedFile[]> {
    const links = await this.links();
    if (!this.index || links.length === 0 || !intent.trim()) return [];
    const ranked = await searchMatching(this.index, intent, {
      kinds: ['rule'],
      namespaces: [this.namespace],
      limit: this.linkLimit,
      minSimilarity: this.minSimilarity,
      signal: options.signal,
    });
    const files: CachedFile[] = [];
    for (const hit of ranked.slice(0, this.linkLimit)) {
      const path = (hit.document.payload as { path?: string } | undefined)?.path;
      const file = path ? await this.read(path) : undefined;
      if (file) files.push(file);
    }
    return files;
  }

  /**
   * Tier 3: the rules files in the folders from `touchedPath`'s folder up to (not
   * including) the project root, outermost first. Paths outside the project have none.
   */
  async nestedFor(touchedPath: string): Promise<CachedFile[]> {
    const absolute = resolve(this.cwd, touchedPath);
    if (absolute === this.cwd || !isWithin(absolute, this.cwd)) return [];
    const folders: string[] = [];
    let folder = dirname(absolute);
    while (folder !== this.cwd && folder.startsWith(this.cwd + sep)) {
      folders.unshift(folder);
      folder = dirname(folder);
    }
    const files: CachedFile[] = [];
    const fileName = basename(this.rootFile);
    for (const candidate of folders) {
      const file = await this.read(join(candidate, fileName));
      if (file) files.push(file);
    }
    return files;
  }

  /** Forgets cached files and re-indexes the root file's links. */
  async refresh(): Promise<void> {
    this.cache.clear();
    this.indexedVersion = undefined;
    await this.links();
  }

  /** A rules file as a prompt section, labelled with its path relative to the project (`../../AGENTS.md` for a parent's) or `label`. */
  section(file: CachedFile, label = relative(this.cwd, file.path) || file.path): string {
    return `<rules path="${label}">\n${file.text.trim()}\n</rules>`;
  }
}

/**
 * The project's rules file when none is configured: `AGENTS.md`, or `CLAUDE.md` in a project that
 * has that and no `AGENTS.md` (one written for Claude Code), so its rules are not silently missed.
 */
export function defaultRulesFile(cwd: string): string {
  return !existsSync(join(cwd, 'AGENTS.md')) && existsSync(join(cwd, 'CLAUDE.md')) ? 'CLAUDE.md' : 'AGENTS.md';
}
