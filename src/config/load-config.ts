import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, type ConfigIssue } from './config-error.js';
import { configIssues } from './config-issues.js';
import { withKeyHints } from './unknown-key-hint.js';
import { checkConfigTrust } from './config-trust.js';
import { missingPackageHint } from './missing-package-hint.js';
import { configSchema, type PlaitedConfig } from './schema.js';
import { importWithTranspileCache } from './import-with-transpile-cache.js';
import { protectLoadedFile } from '../tools/protected-paths.js';
import { errorMessage } from '../errors/error-message.js';
import { decodeText } from '../storage/read-text-head.js';

export interface LoadConfigOptions {
  /** The project folder; `.plaited/config.*` is looked for here. */
  cwd: string;
  /** An explicit file (absolute or relative to `cwd`); it must exist. */
  configPath?: string;
  /**
   * Run the config only if the user trusted exactly this content (`plaited-agent trust`); default
   * true. An untrusted config is not run: defaults apply and `untrusted` says why.
   */
  requireTrust?: boolean;
  /** Where the trust decisions and transpiled configs live (`XDG_CONFIG_HOME`, `HOME`); default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  config: PlaitedConfig;
  /** The file it came from; `null` when none was found or it was not trusted, and defaults apply. */
  path: string | null;
  /** A config that was found but not run, and why (what changed, how to trust it). */
  untrusted?: { file: string; reason: 'untrusted' | 'changed' | 'untrustable' | 'store_damaged'; message: string };
  /** What loading it had to work around (a transpiled copy that could not be read, moved aside), for stderr. */
  warnings?: string[];
}

/**
 * A process parses its config once or twice: zod's fast path, code it generates and compiles per
 * object schema at the first parse, costs ~6 ms of CPU for this schema, far more than it saves here.
 * Same result and issues: it is zod's own interpreted path.
 */
const ONCE = { jitless: true } as const;

/** Looked for in this order; the first that exists wins. */
export const CONFIG_FILE_NAMES = ['config.ts', 'config.mts', 'config.js', 'config.mjs', 'config.json'] as const;

/**
 * Finds, evaluates and validates the project config. TypeScript configs go through
 * jiti, which is imported only when such a file exists: most starts have no config,
 * or a JSON or JavaScript one, and they should not pay for a TypeScript transpiler.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = findConfigFile(options);
  if (file === null) {
    const unreadable = options.configPath === undefined ? unreadableConfigEntries(options.cwd) : [];
    return { config: configSchema.parse({}, ONCE), path: null, ...(unreadable.length > 0 ? { warnings: unreadable } : {}) };
  }
  if (options.requireTrust !== false) {
    const how = options.configPath === undefined ? 'plaited-agent trust' : `plaited-agent trust --config ${options.configPath}`;
    const verdict = await checkConfigTrust(file, options.cwd, how, options.env);
    if (!verdict.trusted) return { config: configSchema.parse({}, ONCE), path: null, untrusted: { file, reason: verdict.reason, message: verdict.message } };
    // The trust decisions are the model's to read, never to write (a sandbox binds them read-only). The
    // files the config imports stay editable: an edit makes the config untrusted, never silently run.
    protectLoadedFile(verdict.store);
  }
  // Whatever config ran at start is the model's to read, never to write.
  protectLoadedFile(file);
  const warnings: string[] = [];
  const raw = await readConfigFile(file, options.env, warnings);
  return { config: validateConfig(raw, file), path: file, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** Applies defaults and checks `raw`; every problem is listed in the thrown ConfigError. */
export function validateConfig(raw: unknown, file: string | null = null): PlaitedConfig {
  const parsed = configSchema.safeParse(raw ?? {}, ONCE);
  if (parsed.success) return parsed.data;
  const issues = configIssues(parsed.error);
  // The message names what a misspelt key was meant to be; the issues stay as zod said them.
  throw new ConfigError('invalid_config', formatInvalid(file, withKeyHints(configSchema, issues)), { file, issues, cause: parsed.error });
}

/** The config file `loadConfig` would load (`null`: none, defaults apply); a missing `configPath` throws `config_not_found`. */
export function findConfigFile({ cwd, configPath }: LoadConfigOptions): string | null {
  if (configPath !== undefined) {
    const file = isAbsolute(configPath) ? configPath : resolve(cwd, configPath);
    if (!isFile(file)) throw new ConfigError('config_not_found', notAConfigFile(file), { file });
    return file;
  }
  return projectConfigFiles(cwd)[0] ?? null;
}

/** The config files in `cwd`'s `.plaited/`, in the order they are looked for: the first is the project's config. */
export function projectConfigFiles(cwd: string): string[] {
  const dir = join(resolve(cwd), '.plaited');
  if (!existsSync(dir)) return [];
  return CONFIG_FILE_NAMES.map((name) => join(dir, name)).filter((file) => isFile(file) && !isEmpty(file));
}

async function readConfigFile(file: string, env: NodeJS.ProcessEnv | undefined, warnings: string[]): Promise<unknown> {
  try {
    // UTF-16 with a byte order mark too: "Unexpected token" over a NUL between every letter helped no one.
    if (file.endsWith('.json')) return JSON.parse(decodeText(await readFile(file)));
    if (file.endsWith('.mjs') || file.endsWith('.js')) {
      try {
        return await importNative(file);
      } catch (error) {
        // ESM syntax in a .js of a CommonJS package, or TypeScript in a .js: jiti copes.
        if (!(error instanceof SyntaxError)) throw error;
      }
    }
    return await importWithJiti(file, env, warnings);
  } catch (error) {
    const cause = missingPackageHint(error) ?? errorMessage(error);
    throw new ConfigError('config_load_failed', `Cannot load config ${file}: ${cause}`, { file, cause: error });
  }
}

/**
 * Plain JavaScript needs no transpiler. Node caches ES modules by URL for the life of
 * the process, so the file's mtime goes into the URL: an edited config loads afresh.
 */
async function importNative(file: string): Promise<unknown> {
  const url = pathToFileURL(file);
  url.searchParams.set('mtime', String(statSync(file).mtimeMs));
  const module = (await import(url.href)) as { default?: unknown };
  return 'default' in module ? module.default : module;
}

function importWithJiti(file: string, env: NodeJS.ProcessEnv | undefined, warnings: string[]): Promise<unknown> {
  // No module cache: a reload after an edit must see the edit. The transpiled copies live where
  // only the user writes (transpile-cache.ts), never in jiti's default folder, which others can.
  return importWithTranspileCache(file, { jiti: { moduleCache: false }, importOptions: { default: true }, env, warn: (message) => warnings.push(message) });
}

/** `Invalid config in <file> (N problems):` and one line per issue. */
export function formatInvalid(file: string | null, issues: ConfigIssue[]): string {
  const lines = issues.map((issue) => `  ${issue.path || '(root)'}: ${issue.message}`);
  const where = file ? ` in ${file}` : '';
  return `Invalid config${where} (${issues.length} ${issues.length === 1 ? 'problem' : 'problems'}):\n${lines.join('\n')}`;
}

/** Why `--config`'s path is not read: it is not there, or it is something other than a file. */
function notAConfigFile(file: string): string {
  let info;
  try {
    info = statSync(file, { throwIfNoEntry: false });
  } catch {
    // Not reachable (a file on the way, no search permission): not found, as before.
  }
  if (!info) return `Config file not found: ${file}`;
  const what = info.isDirectory() ? 'a folder' : 'not a regular file';
  return `Config file ${file} is ${what}: pass the config file itself, e.g. --config ${join(file, 'config.ts')}`;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * `.plaited/config.*` entries that are there but are no file to read (a folder, a symlink loop or
 * a link to nowhere in a config's place): skipped like a missing config, so each is said, or the
 * user's config would be silently not applied.
 */
function unreadableConfigEntries(cwd: string): string[] {
  const warnings: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(resolve(cwd), '.plaited', name);
    try {
      lstatSync(path);
    } catch {
      continue;
    }
    let why: string;
    try {
      const info = statSync(path);
      if (info.isFile() || isPlaceholderFolder(path, info.mode)) continue;
      why = info.isDirectory() ? 'a folder' : 'not a regular file';
    } catch (error) {
      why = errorMessage(error);
    }
    warnings.push(`${path} is not a config file to read (${why}), so it was not: the agent starts with the default config. Put the config there as a file.`);
  }
  return warnings;
}

/**
 * An empty folder with no write bits in a config's place: the read-only layer's placeholder for a
 * missing config, which a killed run (SIGKILL, a lost ssh session) had no chance to remove. It is
 * no config and nothing to warn of: the next sandboxed command (or `init`) removes it.
 */
function isPlaceholderFolder(path: string, mode: number): boolean {
  try {
    return (mode & 0o222) === 0 && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/** An empty file in `.plaited/` is no config: a sandbox's read-only placeholder for a missing config is one. */
function isEmpty(path: string): boolean {
  return statSync(path).size === 0;
}
