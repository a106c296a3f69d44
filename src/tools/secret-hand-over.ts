import { closeSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { secretEnvNames } from './secret-env.js';

/**
 * Handing the agent's secrets to a child process without an environment block.
 *
 * Linux shows every process's *starting* environment in `/proc/<pid>/environ`
 * to anything running as the same user, and deleting a variable later changes
 * nothing there. So a parent that starts the agent (the CLI re-executing itself,
 * the whole-agent sandbox launcher) gives the child an environment without the
 * secrets and writes them, as JSON, on an extra file descriptor whose number the
 * child finds in `PLAITED_SECRETS_FD`. The child reads it once at start, closes
 * it, and puts the values into its in-memory `process.env` (a `setenv` after
 * start never reaches `/proc/<pid>/environ`).
 */
export const SECRETS_FD_ENV = 'PLAITED_SECRETS_FD';

export interface SplitEnvironment {
  /** The environment without the secret-looking variables. */
  env: NodeJS.ProcessEnv;
  /** The secret-looking variables, to hand over on a descriptor. */
  secrets: Record<string, string>;
}

/** Splits `env` into what a child may start with and what it must be handed. */
export function splitSecrets(env: NodeJS.ProcessEnv): SplitEnvironment {
  const names = new Set(secretEnvNames(env));
  const clean: NodeJS.ProcessEnv = {};
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name === SECRETS_FD_ENV) continue;
    if (names.has(name)) secrets[name] = value;
    else clean[name] = value;
  }
  return { env: clean, secrets };
}

/** Writes the secrets on the child's descriptor and closes the parent's end. */
export function sendSecrets(stream: Writable | null | undefined, secrets: Record<string, string>): void {
  if (!stream) return;
  // A child that died before reading closes its end; that is its own failure to report, not ours.
  stream.on('error', () => undefined);
  stream.end(JSON.stringify(secrets));
}

/**
 * In a child started with `PLAITED_SECRETS_FD`: reads the secrets once, closes
 * the descriptor, removes the marker and restores them into `process.env`.
 * Returns the names restored, or null when this process was not handed any.
 * A descriptor that cannot be read is reported on stderr, and the agent goes on
 * without those secrets (it then asks for its credentials as it would without them).
 */
export function receiveSecrets(env: NodeJS.ProcessEnv = process.env): string[] | null {
  const marker = env[SECRETS_FD_ENV];
  if (marker === undefined) return null;
  delete env[SECRETS_FD_ENV];
  const fd = Number(marker);
  try {
    if (!Number.isInteger(fd) || fd < 3) throw new Error(`${SECRETS_FD_ENV}=${marker} is not a descriptor number above 2`);
    const secrets: unknown = JSON.parse(readFileSync(fd, 'utf8'));
    if (typeof secrets !== 'object' || secrets === null) throw new Error('the handed-over secrets are not a JSON object');
    const names: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      if (typeof value !== 'string') continue;
      env[name] = value;
      names.push(name);
    }
    return names;
  } catch (error) {
    process.stderr.write(`plaited-agent: could not read the secrets handed over on descriptor ${marker}: ${(error as Error).message}\n`);
    return [];
  } finally {
    if (Number.isInteger(fd) && fd >= 3) {
      try {
        closeSync(fd);
      } catch {
        // Already closed or never opened.
      }
    }
  }
}
