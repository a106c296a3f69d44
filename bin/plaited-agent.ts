#!/usr/bin/env node
import { holdLifeline, reexecWithoutSecrets } from '../src/cli/reexec-without-secrets.js';
import { receiveSecrets } from '../src/tools/secret-hand-over.js';
import { PlaitedError } from '../src/errors/plaited-error.js';

// A PlaitedError's message names the cause and the fix: its stack would only bury them. Anything
// else is a bug, whose stack is what a report needs.
const fail = (error: unknown): never => {
  const shown = PlaitedError.isInstance(error) ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`plaited-agent: ${shown}\n`);
  process.exit(1);
};

// Secrets never sit in an environment block a tool can read (/proc/<pid>/environ): a process
// handed them on a descriptor restores them in memory; one started with them re-runs itself without.
const argv = process.argv.slice(2);
if (receiveSecrets() === null) {
  const outcome = await reexecWithoutSecrets(argv, (message) => process.stderr.write(`[plaited-agent] ${message}\n`)).catch(fail);
  if (outcome.ran) {
    // The child died of a signal: die of the same one, so our parent sees what happened.
    if (outcome.signal) process.kill(process.pid, outcome.signal);
    process.exit(outcome.code);
  }
} else {
  holdLifeline();
}
const { runCli } = await import('../src/cli/run-cli.js');
runCli(argv).then((code) => process.exit(code), fail);
