import { statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readTextHeadSync } from '../storage/read-text-head.js';

export type ResolvedImport =
  /** `node:fs` and friends: part of Node, nothing to hash. */
  | { kind: 'builtin' }
  /** A relative or absolute path: every file a loader could pick for it (all of them get hashed). */
  | { kind: 'path'; files: string[] }
  /** A package name: where `require` and `import` resolve it from the importing file (none: unresolved). */
  | { kind: 'package'; targets: string[] };

/** Resolves with ES module conditions (`import`, `node`), as jiti and Node's loader do; `undefined` when it cannot. */
export type EsmResolve = (specifier: string, parentURL: string) => Promise<string | undefined>;

const EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.jsx', '.json'];
/** TypeScript's convention: `./x.js` in a source file means `./x.ts`; jiti follows it. */
const TS_TWINS: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };

/**
 * What `specifier`, imported from `from`, can load. Errs towards more: for a path every candidate
 * that exists (the exact name, with each extension, the TypeScript twin of a `.js`, a folder's
 * index and `main`), so a file created later beside the one loaded today changes the set too; for
 * a package both the `require` and the `import` resolution.
 */
export async function resolveConfigImport(specifier: string, from: string, esmResolve: EsmResolve): Promise<ResolvedImport> {
  if (isBuiltin(specifier)) return { kind: 'builtin' };
  if (specifier.startsWith('file:')) return { kind: 'path', files: pathCandidates(fileURLToPath(specifier)) };
  if (isAbsolute(specifier) || specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
    return { kind: 'path', files: pathCandidates(resolve(dirname(from), specifier)) };
  }
  const targets = new Set<string>();
  try {
    const required = createRequire(from).resolve(specifier);
    if (isAbsolute(required)) targets.add(required);
  } catch {
    // not resolvable for require (ESM-only exports, or not installed): the import side may be
  }
  const imported = await esmResolve(specifier, pathToFileURL(from).href);
  if (imported?.startsWith('file:')) targets.add(fileURLToPath(imported));
  return { kind: 'package', targets: [...targets] };
}

function pathCandidates(base: string): string[] {
  const names = [base, ...EXTENSIONS.map((ext) => base + ext), ...(TS_TWINS[extname(base)] ?? []).map((ext) => base.slice(0, -extname(base).length) + ext)];
  const found = names.filter(isFile);
  if (isDirectory(base)) {
    found.push(...EXTENSIONS.map((ext) => join(base, `index${ext}`)).filter(isFile));
    const main = packageMain(join(base, 'package.json'));
    if (main !== undefined && resolve(base, main) !== base) found.push(join(base, 'package.json'), ...pathCandidates(resolve(base, main)));
  }
  return found;
}

function packageMain(file: string): string | undefined {
  try {
    // Never waits on a named pipe in the file's place, and never reads a huge one whole.
    const main = (JSON.parse(readTextHeadSync(file, 1024 * 1024).text) as { main?: unknown }).main;
    return typeof main === 'string' ? main : undefined;
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
