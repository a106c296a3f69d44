import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { userConfigDir } from './user-config-dir.js';

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
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return false;
  }
}
