import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.js';
import { configFingerprint, shown } from '../config/config-fingerprint.js';
import { recordTrust, revokeTrust } from '../config/config-trust.js';
import { findConfigFile } from '../config/load-config.js';
import { shadowedConfigWarning } from '../config/shadowed-config-files.js';
import { errorMessage } from '../errors/error-message.js';
import { usageProblem } from './usage-problem.js';

/** The flags of `plaited-agent trust`. */
const OPTIONS = { config: { type: 'string' }, revoke: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export const TRUST_USAGE = `Usage: plaited-agent trust [--config PATH] [--revoke]

Trusts the project's config (.plaited/config.*, or --config PATH) and every file it imports from
the project, as they are now: the agent runs a config only while its content matches what was
trusted. Lists the files and their sha256; records them in the user's own folder
($XDG_CONFIG_HOME/plaited-agent/trusted-configs.json, else ~/.config/plaited-agent/).

Options:
  --config PATH   the config to trust (default: .plaited/config.{ts,mts,js,mjs,json})
  --revoke        forget the trust instead
  -h, --help      show this help
`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `plaited-agent trust [--config F] [--revoke]`: resolves to the exit code. Nothing of the config runs. */
export async function runTrustCommand(argv: readonly string[], cwd: string, streams: Streams, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: OPTIONS }));
  } catch (error) {
    streams.stderr.write(`plaited-agent trust: ${usageProblem(error, OPTIONS, 'plaited-agent trust --help')}\n\n${TRUST_USAGE}`);
    return 2;
  }
  if (values.help) {
    streams.stdout.write(TRUST_USAGE);
    return 0;
  }
  try {
    const file = findConfigFile({ cwd, configPath: values.config });
    if (file === null) {
      streams.stderr.write(`plaited-agent trust: no config in ${cwd}/.plaited (config.ts, config.mts, config.js, config.mjs or config.json); nothing to trust.\n`);
      return 1;
    }
    if (values.revoke) {
      const removed = await revokeTrust(file, env);
      streams.stdout.write(removed ? `No longer trusted: ${file}\n` : `${file} was not trusted; nothing to revoke.\n`);
      return 0;
    }
    const shadowed = shadowedConfigWarning(cwd, file);
    if (shadowed !== undefined) streams.stderr.write(`plaited-agent trust: ${shadowed}\n`);
    const fingerprint = await configFingerprint(file, cwd);
    // Recorded first: a trust file that cannot be read refuses it, and nothing claims it is trusted.
    const store = await recordTrust(file, fingerprint, env);
    const files = Object.entries(fingerprint.files);
    streams.stdout.write(`Trusting ${file} and what it loads (${files.length} ${files.length === 1 ? 'file' : 'files'}):\n`);
    for (const [path, hash] of files) streams.stdout.write(`  ${hash}  ${shown(path, realpathSync(cwd))}\n`);
    for (const [from, to] of Object.entries(fingerprint.links)) streams.stdout.write(`  (not followed: outside the project, or plaited-agent itself) ${from} -> ${to}\n`);
    streams.stdout.write(`Recorded in ${store}. Any change to these files makes the agent skip the config until you trust it again.\n`);
    return 0;
  } catch (error) {
    const message = ConfigError.isInstance(error) ? error.message : errorMessage(error);
    streams.stderr.write(`plaited-agent trust: ${message}\n`);
    return 1;
  }
}
