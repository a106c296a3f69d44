import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The user's own plaited-agent folder (trust decisions, permission rules): outside every project. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.config');
  return join(base, 'plaited-agent');
}
