import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The JavaScript runtimes the CLI is tested under. */
export type RuntimeName = 'node' | 'bun';
export const RUNTIMES: readonly RuntimeName[] = ['node', 'bun'];

/**
 * The executable of a runtime: this Node for `node`; for `bun`, the binary that the dev
 * dependency `@oven/bun-linux-x64` ships (installed by `npm install`, no other download).
 * Missing is an error, never a skip.
 */
export function runtimeExecutable(runtime: RuntimeName = 'node'): string {
  if (runtime === 'node') return process.execPath;
  const bun = join(root, 'node_modules/@oven/bun-linux-x64/bin/bun');
  if (!existsSync(bun)) throw new Error(`Bun is missing at ${bun}: run \`npm install\` (dev dependency @oven/bun-linux-x64)`);
  return bun;
}
