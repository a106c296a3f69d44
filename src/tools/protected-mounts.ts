import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { UNCREATABLE_NAMES, loadedStartupFilesList } from './protected-paths.js';
import { scanProtectedTree, type ScanBudget } from './scan-protected-tree.js';
import { isWithin } from './workspace-path.js';
import { readTextHeadSync } from '../storage/read-text-head.js';

/** A missing protected name held by an empty read-only stand-in while commands run. */
export interface PlaceholderSpec {
  path: string;
  /** Folders for names in the project (invisible to `git status`, no config to any reader); files inside `.git`. */
  kind: 'dir' | 'file';
  /** A file's content: what git reads as "no change" (`.` in `commondir`). */
  content?: string;
}

/**
 * What the kernel must keep read-only for commands in a set of project roots,
 * whatever a command spells: the same set for the command sandbox, the
 * whole-agent sandbox and the thin layer around unsandboxed commands.
 */
export interface ProtectedMounts {
  /** Existing paths to bind read-only. */
  readOnly: string[];
  /** Missing protected names to hold with placeholders (then bound read-only too). */
  placeholders: PlaceholderSpec[];
  /** A walk ran out of budget: repositories deeper than it reached are not covered. */
  incomplete: boolean;
}

export interface ProtectedMountsOptions extends ScanBudget {
  /** More paths to keep read-only (the user's own plaited folder, denied reads). */
  extraReadOnly?: readonly string[];
  /**
   * Every git folder read-only as a whole (`adapters.sandbox.security.readOnlyGit`): a save of a
   * file inside by a rename cannot lift its wall (a folder is the mount point, not the file), and
   * nothing can commit.
   */
  wholeGitDirs?: boolean;
  home?: string;
}

/**
 * Every repository (at any depth, or the one a root lies in) is read-only where it
 * runs code or points git elsewhere: `config`, `config.worktree`, `hooks/`,
 * `commondir`, the folder `core.hooksPath` names and the files `include.path`
 * names, for its submodules and worktrees too; git's data (objects, refs, index,
 * HEAD, logs) stays writable, so commits work. Each root's protected names are
 * read-only when they exist and held by placeholders when they do not.
 */
export function protectedMounts(roots: readonly string[], options: ProtectedMountsOptions = {}): ProtectedMounts {
  const readOnly = new Set<string>();
  const placeholders = new Map<string, PlaceholderSpec>();
  const absoluteRoots = roots.map((root) => resolve(root));
  let incomplete = false;
  const gitDirs: string[] = [];
  for (const root of absoluteRoots) {
    const tree = scanProtectedTree(root, options);
    incomplete ||= tree.incomplete;
    for (const path of tree.protectedFound) readOnly.add(path);
    for (const file of tree.gitFiles) {
      readOnly.add(file);
      const target = gitFileTarget(file);
      if (target) gitDirs.push(target);
    }
    gitDirs.push(...tree.gitDirs);
    for (const name of UNCREATABLE_NAMES) {
      const path = join(root, name);
      if (lstatSync(path, { throwIfNoEntry: false })) readOnly.add(path);
      else placeholders.set(path, { path, kind: 'dir' });
    }
  }
  const inRoots = (path: string) => absoluteRoots.some((root) => isWithin(path, root));
  const seen = new Set<string>();
  while (gitDirs.length > 0) {
    const gitDir = gitDirs.pop()!;
    if (seen.has(gitDir) || !existsSync(gitDir)) continue;
    seen.add(gitDir);
    gitDirs.push(...protectGitDir(gitDir, { readOnly, placeholders, inRoots, home: options.home ?? process.env.HOME ?? homedir() }));
  }
  if (options.wholeGitDirs) {
    for (const gitDir of seen) readOnly.add(gitDir);
    // Nothing can be made inside a read-only folder: no stand-in is needed there.
    for (const path of placeholders.keys()) if ([...seen].some((gitDir) => isWithin(path, gitDir))) placeholders.delete(path);
  }
  for (const path of [...loadedStartupFilesList(), ...(options.extraReadOnly ?? [])]) if (existsSync(path)) readOnly.add(path);
  for (const path of readOnly) placeholders.delete(path);
  return { readOnly: outermost([...readOnly]).sort(), placeholders: [...placeholders.values()].sort((a, b) => a.path.localeCompare(b.path)), incomplete };
}

/**
 * Without the paths a read-only folder of the list holds already (a symlink stays: it may lead out).
 * One bind fewer each, and no race with a file there that is replaced by a rename: the trust
 * decisions, which `trust` writes atomically, were bound on their own inside the user's read-only
 * folder, and a rename between bubblewrap's bind and its read-only remount failed the command
 * ("Unable to remount destination … Invalid argument": the path led to the new file, no mount point).
 */
function outermost(paths: readonly string[]): string[] {
  const kinds = new Map(paths.map((path) => [path, lstatSync(path, { throwIfNoEntry: false })]));
  const folders = paths.filter((path) => kinds.get(path)?.isDirectory());
  return paths.filter((path) => kinds.get(path)?.isSymbolicLink() || !folders.some((folder) => folder !== path && isWithin(path, folder)));
}

/** More than any git config, `commondir` or `.git` file holds: what is past it is not read. */
const GIT_FILE_MAX_BYTES = 1024 * 1024;

/** What a held `config.worktree` says while it exists. */
export const CONFIG_WORKTREE_PLACEHOLDER = '# plaited-agent: held read-only while a command runs; removed after it\n';

interface GitDirSink {
  readOnly: Set<string>;
  placeholders: Map<string, PlaceholderSpec>;
  inRoots: (path: string) => boolean;
  home: string;
}

/** One git folder's code-bearing files; returns the git folders it leads to (common dir, submodules, worktrees). */
function protectGitDir(gitDir: string, sink: GitDirSink): string[] {
  const more: string[] = [];
  const hold = (name: string, spec: Omit<PlaceholderSpec, 'path'>) => {
    const path = join(gitDir, name);
    if (lstatSync(path, { throwIfNoEntry: false })) sink.readOnly.add(path);
    else sink.placeholders.set(path, { path, ...spec });
  };
  hold('hooks', { kind: 'dir' });
  // `.` is what git assumes without the file: the stand-in changes nothing while it exists.
  hold('commondir', { kind: 'file', content: '.\n' });
  // A comment: valid, empty config to git (an empty read-only file is what bubblewrap leaves and cleaners remove).
  hold('config.worktree', { kind: 'file', content: CONFIG_WORKTREE_PLACEHOLDER });
  const commondir = readText(join(gitDir, 'commondir'))?.trim();
  if (commondir && commondir !== '.') more.push(resolve(gitDir, commondir));
  const config = join(gitDir, 'config');
  if (existsSync(config)) {
    sink.readOnly.add(config);
    const worktree = basename(gitDir) === '.git' ? dirname(gitDir) : null;
    for (const { key, value } of configPaths(readText(config) ?? '')) {
      const expanded = value.startsWith('~/') ? join(sink.home, value.slice(2)) : value;
      const base = key === 'hookspath' ? worktree : dirname(config);
      if (!isAbsolute(expanded) && base === null) continue;
      const path = resolve(base ?? '/', expanded);
      if (existsSync(path)) sink.readOnly.add(path);
      else if (key === 'hookspath' && sink.inRoots(path)) sink.placeholders.set(path, { path, kind: 'dir' });
    }
  }
  more.push(...nestedGitDirs(join(gitDir, 'modules'), 3), ...nestedGitDirs(join(gitDir, 'worktrees'), 1));
  return more;
}

/** `core.hooksPath` and `include.path` / `includeIf.*.path` values of a git config file. */
function configPaths(text: string): Array<{ key: 'hookspath' | 'include'; value: string }> {
  const found: Array<{ key: 'hookspath' | 'include'; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const entry = /^(?:\[[^\]]*\]\s*)?([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line);
    if (!entry) continue;
    const key = entry[1]!.toLowerCase();
    const value = entry[2]!.replace(/\s*[#;].*$/, '').replace(/^"(.*)"$/, '$1').trim();
    if (!value) continue;
    if (section === 'core' && key === 'hookspath') found.push({ key: 'hookspath', value });
    if ((section === 'include' || section === 'includeif') && key === 'path') found.push({ key: 'include', value });
  }
  return found;
}

/** Git folders (they hold `HEAD`) below `dir`, down to `depth` levels (submodule names may hold slashes). */
function nestedGitDirs(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return existsSync(join(path, 'HEAD')) ? [path] : nestedGitDirs(path, depth - 1);
  });
}

/** Where a `.git` file points (`gitdir: …`). */
function gitFileTarget(file: string): string | null {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readText(file) ?? '');
  return match ? resolve(dirname(file), match[1]!) : null;
}

/**
 * A git file's text, or null. Never waits: a command may have left a named pipe in a git file's
 * place (a repository it made), and a plain synchronous read of it froze the whole agent before
 * the next command. Bounded too: these files are small.
 */
function readText(path: string): string | null {
  try {
    return readTextHeadSync(path, GIT_FILE_MAX_BYTES).text;
  } catch {
    return null;
  }
}
