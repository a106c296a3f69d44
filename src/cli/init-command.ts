import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { configFingerprint } from '../config/config-fingerprint.js';
import { recordTrust } from '../config/config-trust.js';
import { ConfigError } from '../config/config-error.js';
import { CONFIG_FILE_NAMES } from '../config/load-config.js';
import { errorMessage } from '../errors/error-message.js';
import { detectProviders } from './detect-providers.js';
import { INIT_AGENTS_MD, initConfigSource } from './init-config-source.js';
import { usageProblem } from './usage-problem.js';
import { ensureFolder } from '../storage/ensure-folder.js';
import { removeStalePlaceholders } from '../tools/protected-placeholders.js';

/** The flags of `plaited-agent init`. */
const OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;

export const INIT_USAGE = `Usage: plaited-agent init

Writes a commented .plaited/config.ts (with a model found in the environment: a provider's key
variable, or an Ollama or LM Studio server on its usual local port) and an AGENTS.md, each only if
the project has none: nothing is ever overwritten. The config it writes is trusted at once (you
asked for it, and it is plaited-agent's own text); after you edit it, run plaited-agent trust.
`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `plaited-agent init`: resolves to the exit code. */
export async function runInitCommand(argv: readonly string[], cwd: string, streams: Streams, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: OPTIONS });
    if (values.help) {
      streams.stdout.write(INIT_USAGE);
      return 0;
    }
  } catch (error) {
    streams.stderr.write(`plaited-agent init: ${usageProblem(error, OPTIONS, 'plaited-agent init --help')}\n\n${INIT_USAGE}`);
    return 2;
  }
  const say = (line: string) => streams.stdout.write(`${line}\n`);
  let untrusted = false;
  try {
    // A killed run's read-only placeholders (empty folders in a missing config's place) are no config.
    removeStalePlaceholders(cwd);
    const existing = CONFIG_FILE_NAMES.map((name) => join(cwd, '.plaited', name)).find((file) => existsSync(file));
    if (existing !== undefined) say(`Kept ${existing}: a config exists (nothing overwritten).`);
    else {
      const detected = await detectProviders(env);
      const file = join(cwd, '.plaited', 'config.ts');
      writeNewFile(file, initConfigSource(detected));
      say(`Wrote ${file}`);
      say(detected[0] ? `  model: ${detected[0].model} (${detected[0].found})` : '  no model found: set a provider key or start Ollama / LM Studio, then edit agent.model');
      // The user asked for this file and it is our own text: trusting it spares a step that would
      // only confirm what init just wrote. An edit (by anyone) needs `plaited-agent trust` again.
      untrusted = !(await trustWritten(file, cwd, env, say, streams.stderr));
    }
    const agents = join(cwd, 'AGENTS.md');
    if (existsSync(agents)) say(`Kept ${agents} (nothing overwritten).`);
    else {
      writeNewFile(agents, INIT_AGENTS_MD);
      say(`Wrote ${agents}: fill in how to build and test this project.`);
    }
    say('Next: plaited-agent doctor checks the setup; plaited-agent -p "task" runs one task.');
    return untrusted ? 1 : 0;
  } catch (error) {
    streams.stderr.write(`plaited-agent init: ${errorMessage(error)}\n`);
    return 1;
  }
}

/**
 * Trusts the config init wrote; false when the trust decisions cannot be read (a damaged
 * trusted-configs.json, which is left as it is): that is said with its fix, and init goes on.
 */
async function trustWritten(file: string, cwd: string, env: NodeJS.ProcessEnv, say: (line: string) => void, stderr: NodeJS.WritableStream): Promise<boolean> {
  try {
    const store = await recordTrust(file, await configFingerprint(file, cwd), env);
    say(`  trusted (recorded in ${store}); after editing it, run plaited-agent trust`);
    return true;
  } catch (error) {
    if (!ConfigError.isInstance(error) || error.code !== 'trust_store_damaged') throw error;
    stderr.write(`plaited-agent init: ${file} was written but not trusted: ${error.message}\n`);
    return false;
  }
}

/** Writes a file that must not exist yet (its folder made first); a failure names the file, the cause and the fix. */
function writeNewFile(file: string, text: string): void {
  try {
    ensureFolder(dirname(file));
    writeFileSync(file, text, { flag: 'wx' });
  } catch (error) {
    const fix = `make ${dirname(file)} a folder you can write, or run init in a project you can write`;
    throw new ConfigError('config_write_failed', `cannot write ${file} (${errorMessage(error)}): ${fix}`, { file, cause: error });
  }
}
