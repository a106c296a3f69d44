import { existsSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from './config-error.js';
import { configFingerprint, shown, type ConfigFingerprint } from './config-fingerprint.js';
import { userConfigDir } from './user-config-dir.js';
import { errorMessage } from '../errors/error-message.js';
import { readTextHeadSync } from '../storage/read-text-head.js';
import { ensureFolder } from '../storage/ensure-folder.js';

/** One trusted config: the fingerprint the user saw and accepted, and when. */
export interface TrustRecord extends ConfigFingerprint {
  trustedAt: string;
}

/** `trusted-configs.json` in the user's own folder: config path → what was trusted. */
export interface TrustStore {
  version: 1;
  configs: Record<string, TrustRecord>;
}

export type TrustVerdict =
  | { trusted: true; fingerprint: ConfigFingerprint; store: string }
  | { trusted: false; reason: 'untrusted' | 'changed' | 'untrustable' | 'store_damaged'; message: string };

export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userConfigDir(env), 'trusted-configs.json');
}

/**
 * Whether `configFile` (with everything it imports) is exactly what the user trusted. Nothing
 * runs: the import graph is read statically. `how` is the command that trusts it, for the message.
 */
export async function checkConfigTrust(configFile: string, projectDir: string, how: string, env: NodeJS.ProcessEnv = process.env): Promise<TrustVerdict> {
  const root = realOrSelf(projectDir);
  const name = shown(realOrSelf(configFile), root);
  let fingerprint: ConfigFingerprint;
  try {
    fingerprint = await configFingerprint(configFile, projectDir);
  } catch (error) {
    if (!ConfigError.isInstance(error) || error.code !== 'config_untrustable') throw error;
    return { trusted: false, reason: 'untrustable', message: `${error.message}\nIt was not run: the agent starts with the default config.` };
  }
  const store = trustStorePath(env);
  let record: TrustRecord | undefined;
  try {
    record = readTrustStore(store).configs[realOrSelf(configFile)];
  } catch (error) {
    if (!ConfigError.isInstance(error) || error.code !== 'trust_store_damaged') throw error;
    return { trusted: false, reason: 'store_damaged', message: `${name} was not run (the agent starts with the default config): ${error.message}` };
  }
  if (record?.sha256 === fingerprint.sha256) return { trusted: true, fingerprint, store };
  const fix = `Check it, then run \`${how}\` in ${projectDir} to trust it (\`plaited-agent trust --revoke\` forgets a trust).`;
  if (record === undefined) {
    const count = Object.keys(fingerprint.files).length;
    const imports = count > 1 ? ` and the ${count - 1} ${count === 2 ? 'file' : 'files'} it imports` : '';
    return { trusted: false, reason: 'untrusted', message: `${name}${imports} ${count > 1 ? 'are' : 'is'} not trusted, so it was not run: the agent starts with the default config. ${fix}` };
  }
  const changes = describeChanges(record, fingerprint, root);
  return {
    trusted: false,
    reason: 'changed',
    message: `${changes.join(', ')} since you trusted ${name} (${record.trustedAt}), so it was not run: the agent starts with the default config. ${fix}`,
  };
}

/**
 * Records `fingerprint` as trusted for `configFile` (the file is written atomically, 0600 in a 0700
 * folder). The trusts of configs that are gone (a deleted project) are forgotten meanwhile: every
 * start with a config reads the whole store, and nothing else ever removed them. A project that is
 * only unmounted then needs its `trust` again: the safe side.
 */
export async function recordTrust(configFile: string, fingerprint: ConfigFingerprint, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const store = trustStorePath(env);
  await updateTrustStore(store, (current) => {
    for (const file of Object.keys(current.configs)) if (!existsSync(file)) delete current.configs[file];
    current.configs[realOrSelf(configFile)] = { ...fingerprint, trustedAt: new Date().toISOString() };
    return true;
  });
  return store;
}

/** Forgets the trust of `configFile`; false when there was none. */
export async function revokeTrust(configFile: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const key = realOrSelf(configFile);
  return updateTrustStore(trustStorePath(env), (current) => {
    if (!(key in current.configs)) return false;
    delete current.configs[key];
    return true;
  });
}

/**
 * Read, change, write under a lock: two `trust` commands at once (two terminals, two
 * projects) would otherwise each write what it read, and one trust would be lost.
 */
async function updateTrustStore(store: string, change: (current: TrustStore) => boolean): Promise<boolean> {
  ensureFolder(dirname(store), 0o700);
  // Loaded here, not at start: every start reads trust, only `trust` and `init` write it.
  const { default: lockfile } = await import('proper-lockfile');
  const release = await lockfile.lock(store, { realpath: false, stale: 10_000, retries: { retries: 100, minTimeout: 10, maxTimeout: 100 } });
  try {
    const current = readTrustStore(store);
    const changed = change(current);
    if (changed) writeTrustStore(store, current);
    return changed;
  } finally {
    await release();
  }
}

function describeChanges(record: TrustRecord, now: ConfigFingerprint, root: string): string[] {
  const changes: string[] = [];
  for (const [file, hash] of Object.entries(now.files)) {
    if (!(file in record.files)) changes.push(`${shown(file, root)} is new`);
    else if (record.files[file] !== hash) changes.push(`${shown(file, root)} changed`);
  }
  for (const file of Object.keys(record.files)) if (!(file in now.files)) changes.push(`${shown(file, root)} is no longer imported`);
  for (const [key, target] of Object.entries(now.links)) if (record.links[key] !== target) changes.push(`${key} now resolves to ${target}`);
  return changes.length > 0 ? changes : ['its imports changed'];
}

/**
 * The trust decisions; none when the file does not exist. A file that cannot be read or is not a
 * trust store (truncated, not JSON, a folder in its place) is a `trust_store_damaged` error, never
 * "nothing is trusted": `trust` would then write a store holding one decision over all the others.
 */
function readTrustStore(file: string): TrustStore {
  let text: string;
  let truncated: boolean;
  try {
    ({ text, truncated } = readTextHeadSync(file, MAX_TRUST_STORE_BYTES));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, configs: {} };
    throw damagedTrustStore(file, errorMessage(error), error);
  }
  if (truncated) throw damagedTrustStore(file, `over ${MAX_TRUST_STORE_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw damagedTrustStore(file, `not valid JSON: ${errorMessage(error)}`, error);
  }
  const { version, configs } = (parsed ?? {}) as Partial<TrustStore>;
  if (version === 1 && typeof configs === 'object' && configs !== null && !Array.isArray(configs)) return { version: 1, configs };
  throw damagedTrustStore(file, 'expected { "version": 1, "configs": { ... } }');
}

/** Far more decisions than anyone makes; a larger file is no trust store (and is not read whole). */
const MAX_TRUST_STORE_BYTES = 64 * 1024 * 1024;

function damagedTrustStore(file: string, why: string, cause?: unknown): ConfigError {
  return new ConfigError(
    'trust_store_damaged',
    `the trust decisions in ${file} cannot be read (${why}). Repair the file or restore it from a backup; or move it aside (mv "${file}" "${file}.damaged") and run \`plaited-agent trust\` again in each project whose config you trust. plaited-agent leaves the file as it is.`,
    { file, ...(cause === undefined ? {} : { cause }) },
  );
}

function writeTrustStore(file: string, store: TrustStore): void {
  ensureFolder(dirname(file), 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
