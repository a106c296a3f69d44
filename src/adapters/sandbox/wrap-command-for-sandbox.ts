import { dieWithAgent } from '../../tools/die-with-agent.js';
import { limitsShellPrefix } from './resource-limits.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { releaseCommand, wrapShellCommand } from './sandbox-runtime-host.js';
import { settlePlaceholders } from '../../tools/protected-placeholders.js';
import { insideSandbox } from './sandboxed-runtime.js';
import { shellQuote } from '../../tools/shell-quote.js';

let serverSequence = 0;

/**
 * The command line that starts a stdio MCP server under the sandbox policy:
 * spawn the returned `command` with `args` (and the server's own env and cwd)
 * exactly as you would have spawned the original. stdin and stdout pass
 * through bubblewrap untouched, so the MCP framing is unaffected.
 *
 * The memory limit applies (and the process limit where `ulimit -u` works, i.e.
 * when not root); the wall-clock limit does not, since a server lives as long
 * as its session. Inside the whole-agent sandbox (`PLAITED_SANDBOXED=1`) the
 * server already inherits the walls and only the limits are added.
 *
 * The server counts as a running command (its placeholders stay) until `release`, called once
 * it is gone for good (a crashed server restarts with the same command line): the placeholders
 * then go as soon as no mount namespace binds them any more.
 */
export async function wrapCommandForSandbox(
  command: string,
  args: readonly string[],
  policy: SandboxPolicy,
): Promise<{ command: string; args: string[]; release: () => Promise<void> }> {
  const limits = limitsShellPrefix(policy.limits, { processLimitInShell: process.geteuid?.() !== 0 });
  const prefix = limits ? `${limits} || exit 125\n` : '';
  // The argv after the script, each word once as it is: no wrapper line to outgrow.
  if (insideSandbox()) return { command: 'bash', args: ['-c', `${prefix}exec "$@"`, 'bash', command, ...args], release: async () => undefined };
  // Each wrapper below takes this line once (retry-bwrap-start.ts names bwrap's words once), so an
  // argument fits as long as the line stays under the system's 128 KiB for one argument.
  const commandLine = [command, ...args].map(shellQuote).join(' ');
  const wrapped = await wrapShellCommand(`${prefix}exec ${commandLine}`, policy, `plaited-mcp-${process.pid}-${++serverSequence}`);
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await settlePlaceholders(policy.placeholders.map((spec) => spec.path));
    await releaseCommand();
  };
  return { command: '/bin/sh', args: ['-c', dieWithAgent(wrapped)], release };
}
