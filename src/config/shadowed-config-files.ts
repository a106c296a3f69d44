import { dirname, join, relative, resolve } from 'node:path';
import { CONFIG_FILE_NAMES, projectConfigFiles } from './load-config.js';

/**
 * The other config files beside the one that is read (`.plaited/config.json` beside a
 * `config.ts`): only the first of `CONFIG_FILE_NAMES` counts, so these are never read, and a
 * user who edits one of them sees nothing change. Empty for `--config` files and no config.
 */
export function shadowedConfigFiles(cwd: string, chosen: string | null): string[] {
  if (chosen === null || dirname(chosen) !== join(resolve(cwd), '.plaited')) return [];
  return projectConfigFiles(cwd).filter((file) => file !== chosen);
}

/** The warning for them, or `undefined` when there are none. */
export function shadowedConfigWarning(cwd: string, chosen: string | null): string | undefined {
  const others = shadowedConfigFiles(cwd, chosen);
  if (others.length === 0 || chosen === null) return undefined;
  const shown = (file: string) => relative(resolve(cwd), file);
  return `${others.map(shown).join(', ')} ${others.length === 1 ? 'is' : 'are'} not read: ${shown(chosen)} is the project's config (the first of ${CONFIG_FILE_NAMES.join(', ')}). Move what you need into it and delete the other.`;
}
