import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFingerprint } from '../../src/config/config-fingerprint.js';
import { recordTrust } from '../../src/config/config-trust.js';
import { findConfigFile } from '../../src/config/load-config.js';

const CLI = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist/bin/plaited-agent.js');
const NAMES = ['config.ts', 'config.mts', 'config.js', 'config.mjs', 'config.json'];

/**
 * Trusts the config a CLI started in `cwd` with `args` would load (`--config`, else
 * `.plaited/config.*`) through the real `plaited-agent trust` command, as its user would after
 * writing it. Trust decisions land in the test run's own XDG_CONFIG_HOME (test/global-setup.ts).
 * Does nothing when there is no config.
 */
export function trustProjectConfig(cwd: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}): void {
  const explicit = configArgument(args);
  const file = explicit === undefined ? NAMES.map((name) => join(cwd, '.plaited', name)).find(isNonEmptyFile) : resolve(cwd, explicit);
  if (file === undefined || !existsSync(file)) return; // no config, or a missing --config the CLI itself reports
  // A restart on the same config (the same bytes) needs no second trust: the machine is shared and slow.
  const key = `${cwd}\0${file}`;
  const bytes = readFileSync(file, 'utf8');
  if (trusted.get(key) === bytes) return;
  const trustArgs = explicit === undefined ? [] : ['--config', explicit];
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const run = spawnSync(process.execPath, [CLI, 'trust', ...trustArgs], { cwd, env: merged, encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`plaited-agent trust failed in ${cwd} (exit ${run.status}):\n${run.stderr}`);
  trusted.set(key, bytes);
}

/** What this test process trusted already: cwd + config file → the config's text then. */
const trusted = new Map<string, string>();

function configArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--config') return args[i + 1];
    if (args[i]!.startsWith('--config=')) return args[i]!.slice('--config='.length);
  }
  return undefined;
}

function isNonEmptyFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile() && statSync(path).size > 0;
}

/** The in-process twin of `trustProjectConfig`, through the library functions the command uses. */
export async function trustConfigFor(options: { cwd: string; configPath?: string }): Promise<void> {
  const file = findConfigFile(options);
  if (file !== null) await recordTrust(file, await configFingerprint(file, options.cwd));
}
