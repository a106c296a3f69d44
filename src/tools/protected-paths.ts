import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import picomatch from 'picomatch';

/**
 * Files that are executed, or that decide what the agent may do, when something
 * starts in a project: plaited-agent itself, git, a shell, an editor, another
 * agent. A write to one of them is a command, not an edit: the permission policy
 * always asks (whatever the mode or a remembered "always allow"), and the sandbox
 * keeps them read-only to the agent and its commands whatever the approval.
 * The one list both use; README "Sandbox" and DESIGN-NOTES say why each is here.
 *
 * Not here, on purpose: rules and skills (`AGENTS.md`, `CLAUDE.md`, `SKILL.md`) and
 * memory. They are text that steers the model but grants nothing: every action they
 * ask for still passes this policy. Editing them is ordinary work.
 */
export const PROTECTED_PATTERNS: readonly string[] = [
  // plaited-agent's own config: code run by jiti at start, and the tool allow lists; code
  // beside it is what a config imports (`./helpers.ts`).
  '.plaited/config.*',
  '.plaited/*.{ts,mts,cts,js,mjs,cjs}',
  // git runs hooks, and `.git/config` runs code (core.hooksPath, core.fsmonitor, pager, aliases,
  // filter drivers); `.git` itself when a file points git at another directory.
  '.git',
  '.git/**',
  '.gitmodules',
  // Shell start-up and environment loaders.
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.envrc',
  '.gitconfig',
  '.ripgreprc',
  // Other agents' and editors' project config that starts commands (MCP servers, tasks, hooks).
  '.mcp.json',
  '.vscode',
  '.vscode/**',
  '.idea',
  '.idea/**',
  '.zed',
  '.zed/**',
  '.devcontainer',
  '.devcontainer/**',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/commands',
  '.claude/commands/**',
  '.claude/agents',
  '.claude/agents/**',
  '.claude/hooks',
  '.claude/hooks/**',
  // Files other tools run by themselves, without the user choosing to run project code: git hook
  // folders for `core.hooksPath` (husky, plain), pre-commit's hook list, mise's tasks and env (run on
  // `cd` by its shell hook), npm's and yarn's settings (`yarnPath` runs on any yarn command,
  // `.npmrc` sets scripts' shell and node options).
  '.husky',
  '.husky/**',
  '.githooks',
  '.githooks/**',
  '.pre-commit-config.yaml',
  'mise.toml',
  '.mise.toml',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
];

/**
 * The protected names a command could create at a project's top level: the walls keep each
 * one that is missing uncreatable with a placeholder (src/tools/protected-placeholders.ts).
 * Config slots are the names the config loader looks for (and the CommonJS spellings).
 */
export const UNCREATABLE_NAMES: readonly string[] = [
  ...['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json'].map((ext) => `.plaited/config.${ext}`),
  '.gitmodules',
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin'],
  '.envrc',
  '.gitconfig',
  '.ripgreprc',
  '.mcp.json',
  ...['.vscode', '.idea', '.zed', '.devcontainer'],
  ...['settings.json', 'settings.local.json', 'commands', 'agents', 'hooks'].map((name) => `.claude/${name}`),
  ...['.husky', '.githooks', '.pre-commit-config.yaml', 'mise.toml', '.mise.toml', '.npmrc', '.yarnrc', '.yarnrc.yml'],
];

// Anywhere in the tree (a nested repository's hooks run as well), in any letter case
// (a case-insensitive file system opens `.GIT/HOOKS` as `.git/hooks`).
// One regular expression for the whole list: this runs for every word of a command.
// Built at the first check, not at load (~3 ms of picomatch): a session start never asks.
let protectedRe: RegExp | undefined;
const matchesProtected = (path: string): boolean =>
  (protectedRe ??= new RegExp(
    PROTECTED_PATTERNS.map((pattern) => `(?:${picomatch.makeRe(`**/${pattern}`, { dot: true, nocase: true }).source})`).join('|'),
    'i',
  )).test(path);

/** Whether an absolute path is one of the protected names (lexically; see `isProtectedPath`). */
export function matchesProtectedName(path: string): boolean {
  return matchesProtected(path);
}

/**
 * Files this process loaded and ran at start (the config file, `--adapter` modules):
 * protected wherever they live. Registered by their loaders.
 */
const loadedStartupFiles = new Set<string>();

/** Called by the loaders of code that runs at start (config, custom adapters). */
export function protectLoadedFile(file: string): void {
  const absolute = resolve(file);
  loadedStartupFiles.add(absolute);
  const real = realOrSelf(absolute);
  loadedStartupFiles.add(real);
}

/** What `protectLoadedFile` registered, for the sandbox's read-only list. */
export function loadedStartupFilesList(): string[] {
  return [...loadedStartupFiles];
}

/**
 * Whether writing `target` (absolute, or relative to `cwd`) could change a protected
 * file: the path as named, where its symlinks lead (also for a file yet to be
 * created under a linked folder), and an existing file with other hard links
 * (another name for it may be protected). `..`, trailing slashes and letter case
 * do not matter.
 */
/** The lexical half of `isProtectedPath`: no file system access (for bulk text). */
export function isProtectedSpelling(target: string, cwd: string): boolean {
  const absolute = resolve(cwd, expandHome(target));
  return matchesProtected(absolute) || loadedStartupFiles.has(absolute);
}

export function isProtectedPath(target: string, cwd: string): boolean {
  const absolute = resolve(cwd, expandHome(target));
  if (matchesProtected(absolute) || loadedStartupFiles.has(absolute)) return true;
  const real = realOrSelf(absolute);
  if (real !== absolute && (matchesProtected(real) || loadedStartupFiles.has(real))) return true;
  return hasOtherHardLinks(real);
}

/** Where a path really leads: realpath of the longest existing prefix, links in the rest followed. */
export function realOrSelf(path: string, hops = 0): string {
  // existsSync and lstat with throwIfNoEntry: a missing path costs no exception (this runs per word of a command).
  if (existsSync(path)) {
    try {
      return realpathSync.native(path);
    } catch {
      return path;
    }
  }
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link?.isSymbolicLink() && hops < 40) {
    try {
      return realOrSelf(resolve(dirname(path), readlinkSync(path)), hops + 1);
    } catch {
      return path;
    }
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(realOrSelf(parent, hops + 1), basename(path));
}

function expandHome(path: string): string {
  if (path !== '~' && !path.startsWith('~/')) return path;
  return join(process.env.HOME ?? homedir(), path.slice(1));
}

function hasOtherHardLinks(path: string): boolean {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && stat.isFile() && stat.nlink > 1;
  } catch {
    return false;
  }
}
