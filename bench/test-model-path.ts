import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A model file for a benchmark: the path in `variable` (what `.ci/run` sets for the
 * tests), else `file` in `../shared/models` beside the repository. Run as
 * `dist/bench/*.js` or `bench/*.ts`, the repository root is found either way.
 */
export function testModelPath(variable: string, file: string, neededBy: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = here.includes(join('dist', 'bench')) ? resolve(here, '../..') : resolve(here, '..');
  const path = process.env[variable] || resolve(root, '../shared/models', file);
  if (!existsSync(path)) throw new Error(`${variable} is not set and ${path} does not exist: ${neededBy}.`);
  return path;
}
