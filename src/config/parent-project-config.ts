import { dirname, resolve } from 'node:path';
import { projectConfigFiles } from './load-config.js';

/**
 * The nearest folder above `cwd` holding a project config (`.plaited/config.*`), when `cwd` has
 * none: a script that runs `cd src && plaited-agent -p …` starts in a folder below its project,
 * where the config is not read (the project folder is the one the agent starts in: its sessions,
 * its state, its config).
 */
export function parentProjectConfig(cwd: string): { folder: string; file: string } | undefined {
  let folder = resolve(cwd);
  for (let parent = dirname(folder); parent !== folder; folder = parent, parent = dirname(folder)) {
    const file = projectConfigFiles(parent)[0];
    if (file !== undefined) return { folder: parent, file };
  }
  return undefined;
}

/** The warning for it: which config is not read from here, and the two ways to use it. */
export function parentProjectConfigWarning(cwd: string): string | undefined {
  const found = parentProjectConfig(cwd);
  if (found === undefined) return undefined;
  return `${found.file} is not read from ${resolve(cwd)}: the project is the folder plaited-agent starts in (its config, sessions and state), and this one has no .plaited/config.*. Run it there (cd ${found.folder}), or pass --config ${found.file}`;
}
