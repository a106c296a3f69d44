import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config-error.js';
import { moduleSpecifiers } from './module-specifiers.js';
import { resolveConfigImport, type EsmResolve } from './resolve-config-import.js';

export interface ConfigFingerprint {
  /** sha256 over everything below: what a trust decision is about. */
  sha256: string;
  /** Every file that loads with the config (absolute, real path) → sha256 of its bytes. */
  files: Record<string, string>;
  /** Package imports that resolve outside the project (or to plaited-agent itself): not followed, but where they lead is part of the fingerprint. */
  links: Record<string, string>;
}

/** A file of the config larger than this is refused rather than read whole (a 200 MB config.json took 650 MB). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** A config reaching more files than this is refused rather than hashed for ever. */
const MAX_FILES = 5_000;
const CODE = /\.(?:[cm]?[jt]sx?)$/;

/**
 * The config's whole local import graph, read statically (nothing runs): the file, its relative
 * imports, and packages that resolve inside the project (its own `node_modules`), followed
 * transitively. A load no static reading can follow (`import(name)`) makes it a
 * `config_untrustable` ConfigError naming each one.
 */
export async function configFingerprint(configFile: string, projectDir: string): Promise<ConfigFingerprint> {
  const root = realOrSelf(projectDir);
  // plaited-agent installed in the project is the program itself, not config (unless the project is plaited-agent).
  const own = ownPackageRoot() === root ? null : ownPackageRoot();
  const files: Record<string, string> = {};
  const links: Record<string, string> = {};
  const computed: string[] = [];
  const esmResolve = lazyEsmResolve();
  const queue = [realOrSelf(configFile)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (file in files) continue;
    if (Object.keys(files).length >= MAX_FILES) {
      throw new ConfigError('config_untrustable', `${configFile} reaches more than ${MAX_FILES} files through its imports; it cannot be checked before it runs. Import less, or use .plaited/config.json.`, { file: configFile });
    }
    const info = statSync(file);
    if (!info.isFile()) throw new ConfigError('config_untrustable', `${shown(file, root)} is not a regular file (a pipe, socket or device): a config loads files.`, { file: configFile });
    const { size } = info;
    if (size > MAX_FILE_BYTES) {
      throw new ConfigError('config_untrustable', `${shown(file, root)} is ${size} bytes, over ${MAX_FILE_BYTES}: no config (nor a file it imports) is that large, and it is not read whole to be checked. Is it the right file?`, { file: configFile });
    }
    const bytes = readFileSync(file);
    files[file] = sha256(bytes);
    if (!CODE.test(file)) continue;
    const found = await moduleSpecifiers(bytes.toString('utf8'));
    if (found.syntaxError !== undefined) throw await syntaxErrorIn(file, root, bytes.toString('utf8'), found.syntaxError);
    computed.push(...found.computed.map((text) => `${shown(file, root)} ${text}`));
    for (const specifier of found.specifiers) {
      const resolved = await resolveConfigImport(specifier, file, esmResolve);
      if (resolved.kind === 'path') queue.push(...resolved.files.map(realOrSelf));
      if (resolved.kind !== 'package') continue;
      const inside = isAgentPackage(specifier) ? [] : resolved.targets.map(realOrSelf).filter((target) => isInside(target, root) && !(own !== null && isInside(target, own)));
      queue.push(...inside);
      links[`${shown(file, root)} → ${specifier}`] = resolved.targets.length === 0 ? '(unresolved)' : resolved.targets.map(realOrSelf).sort().join(' | ');
    }
  }
  if (computed.length > 0) {
    throw new ConfigError(
      'config_untrustable',
      `${configFile} cannot be trusted: these loads are computed at run time, so the files they reach cannot be listed and checked before it runs:\n${computed.map((line) => `  ${line}`).join('\n')}\nImport each file by a literal path instead.`,
      { file: configFile },
    );
  }
  return { sha256: digest(files, links), files, links };
}

/** A file of the config that does not parse: where, and what to do (not a computed import: nothing is computed). */
async function syntaxErrorIn(file: string, root: string, source: string, lexerMessage: string): Promise<ConfigError> {
  const { locateSyntaxError } = await import('./locate-syntax-error.js');
  const found = await locateSyntaxError(source, file);
  const what = found ? `a syntax error at line ${found.line}:${found.column} (${found.message})` : `a syntax error (${lexerMessage}: an unclosed bracket, brace, string or comment?)`;
  return new ConfigError('config_untrustable', `${shown(file, root)} has ${what}: fix it, then run \`plaited-agent trust\`.`, { file });
}

function digest(files: Record<string, string>, links: Record<string, string>): string {
  const canonical = JSON.stringify({
    files: Object.keys(files).sort().map((path) => [path, files[path]]),
    links: Object.keys(links).sort().map((key) => [key, links[key]]),
  });
  return sha256(Buffer.from(canonical));
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Jiti's resolver (the one that loads TypeScript configs), imported only when a package import needs it. */
function lazyEsmResolve(): EsmResolve {
  let jiti: Promise<{ esmResolve(id: string, options: { parentURL: string; conditions: string[]; try: true }): string | undefined }> | undefined;
  return async (specifier, parentURL) => {
    jiti ??= import('jiti').then(({ createJiti }) => createJiti(fileURLToPath(import.meta.url), { fsCache: false, moduleCache: false }));
    return (await jiti).esmResolve(specifier, { parentURL, conditions: ['node', 'import'], try: true });
  };
}

let ownRoot: string | null | undefined;
/** This package's own folder: the program that is running is no config to trust. */
function ownPackageRoot(): string | null {
  if (ownRoot !== undefined) return ownRoot;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'plaited-agent') return (ownRoot = realOrSelf(dir));
    } catch {
      // no package.json here: keep looking upwards
    }
    if (dirname(dir) === dir) return (ownRoot = null);
  }
}

/**
 * `plaited-agent` (for `defineConfig` and types) is the agent itself, whichever copy resolves:
 * where it resolves is hashed, its files are not (its own dynamic loads, adapters and configs,
 * would make every config that imports it untrustable).
 */
function isAgentPackage(specifier: string): boolean {
  return specifier === 'plaited-agent' || specifier.startsWith('plaited-agent/');
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A path as the user knows it: relative to the project when inside it. */
export function shown(path: string, root: string): string {
  return isInside(path, root) ? relative(root, path) : path;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
