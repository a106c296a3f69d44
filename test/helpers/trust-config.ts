import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { configFingerprint } from '../../src/config/config-fingerprint.js';
import { recordTrust } from '../../src/config/config-trust.js';
import { findConfigFile } from '../../src/config/load-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NAMES = ['config.ts', 'config.mts', 'config.js', 'config.mjs', 'config.json'];

/**
 * Trusts the config a CLI started in `cwd` with `args` would load (`--config`, else
 * `.plaited/config.*`) through the `plaited-agent trust` command of the built CLI, as its user
 * would after writing it. Trust decisions land in the test run's own XDG_CONFIG_HOME
 * (test/global-setup.ts). Does nothing when there is no config.
 *
 * The command runs in one worker thread of this test process (trust-command-worker.mjs), not in
 * a CLI process of its own: a start costs a second of CPU on the shared 2-core machine and the
 * suite trusts a config before most starts; the command's own process is covered by
 * test/e2e/config-trust.test.ts.
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
  const run = runTrustCommandSync(trustArgs, cwd, merged);
  if (run.status !== 0) throw new Error(`plaited-agent trust failed in ${cwd} (exit ${run.status}):\n${run.stderr}`);
  trusted.set(key, bytes);
}

/** What this test process trusted already: cwd + config file → the config's text then. */
const trusted = new Map<string, string>();

interface TrustRun {
  status: number;
  stdout: string;
  stderr: string;
}

let trustWorker: { port: MessagePort; signal: Int32Array } | undefined;

/** `plaited-agent trust ARGS` in `cwd` with `env`, run by the worker while this thread waits (30 s at most). */
function runTrustCommandSync(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): TrustRun {
  if (!trustWorker) {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const trustCommandUrl = pathToFileURL(join(ROOT, 'dist/src/cli/trust-command.js')).href;
    const worker = new Worker(new URL('./trust-command-worker.mjs', import.meta.url), { workerData: { port: port2, signal, trustCommandUrl }, transferList: [port2] });
    worker.unref();
    port1.unref();
    trustWorker = { port: port1, signal };
  }
  const { port, signal } = trustWorker;
  Atomics.store(signal, 0, 0);
  port.postMessage({ args: [...args], cwd, env });
  if (Atomics.wait(signal, 0, 0, 30_000) === 'timed-out') throw new Error(`plaited-agent trust did not answer within 30 s in ${cwd}`);
  const reply = receiveMessageOnPort(port)?.message as TrustRun | undefined;
  if (!reply) throw new Error(`plaited-agent trust answered nothing in ${cwd}`);
  return reply;
}

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
