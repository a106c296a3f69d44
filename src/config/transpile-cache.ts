import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { userConfigDir } from './user-config-dir.js';
import { ensureFolder } from '../storage/ensure-folder.js';

/**
 * Where jiti keeps the JavaScript it made of a trusted TypeScript config (and of `--adapter`
 * modules), so a start reuses it instead of loading Babel and transpiling again (~230 ms of CPU).
 *
 * Whoever can write this folder chooses the code the next start runs, so it lives in the user's
 * own plaited-agent folder beside the trust decisions, and takes their protection: 0700, outside
 * every workspace the file tools may write, and bound read-only in every sandbox. Never jiti's
 * default (`node_modules/.cache` or `$TMPDIR/jiti`), which others can write. jiti reuses a copy
 * only while it ends with the hash of the source it was made from: an edit transpiles afresh.
 *
 * `false` (no cache, transpile every time) where the folder cannot be written: a read-only home,
 * or inside the whole-agent sandbox.
 */
export function transpileCacheDir(env: NodeJS.ProcessEnv = process.env): string | false {
  const dir = join(userConfigDir(env), 'transpiled');
  try {
    ensureFolder(dir, 0o700);
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return false;
  }
}

/** The file in each source's folder that names the source (what pruning checks). */
const SOURCE_NAME = 'source';

/**
 * The cache folder for one module loaded at start (a config, an `--adapter` file): a folder of
 * its own under `transpileCacheDir`, holding the copies of it and of what it imports. jiti names a
 * copy after its source's path, so an edit replaces it; a source that is gone (a deleted project,
 * a removed worktree) left its copies for good. Its folder names it, so when a new source's folder
 * is made (its first start: nothing is looked at on the others) the folders whose source is gone
 * are removed, and the copies of the old flat layout with them. `false` as `transpileCacheDir`.
 */
export function transpileCacheFor(source: string, env: NodeJS.ProcessEnv = process.env): string | false {
  const root = transpileCacheDir(env);
  if (root === false) return false;
  const absolute = resolve(source);
  const dir = join(root, createHash('sha256').update(absolute).digest('hex').slice(0, 16));
  try {
    if (!existsSync(dir)) {
      ensureFolder(dir, 0o700);
      writeFileSync(join(dir, SOURCE_NAME), absolute, { mode: 0o600 });
      pruneGoneSources(root, dir);
    }
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return false;
  }
}

/** Removes the source folders whose source is gone, and loose copies (the layout before folders). */
function pruneGoneSources(root: string, keep: string): void {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (path === keep) continue;
    try {
      if (entry.isFile()) rmSync(path, { force: true });
      else if (entry.isDirectory() && isGone(readFileSync(join(path, SOURCE_NAME), 'utf8'))) rmSync(path, { recursive: true, force: true });
    } catch {
      // Being made by another start (no source name yet), or removed by one: left alone.
    }
  }
}

function isGone(source: string): boolean {
  return source.length > 0 && !existsSync(source);
}
