import { dieWithAgent } from '../../tools/die-with-agent.js';
import { limitsShellPrefix } from './resource-limits.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { wrapShellCommand } from './sandbox-runtime-host.js';
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
 * Note: the server's sandbox mounts stay registered until the process exits;
 * per-command cleanup waits for them.
 */
export async function wrapCommandForSandbox(command: string, args: readonly string[], policy: SandboxPolicy): Promise<{ command: string; args: string[] }> {
  const commandLine = [command, ...args].map(shellQuote).join(' ');
  const limits = limitsShellPrefix(policy.limits, { processLimitInShell: process.geteuid?.() !== 0 });
  const script = `${limits ? `${limits} || exit 125\n` : ''}exec ${commandLine}`;
  if (insideSandbox()) return { command: 'bash', args: ['-c', script] };
  const wrapped = await wrapShellCommand(script, policy, `plaited-mcp-${process.pid}-${++serverSequence}`);
  return { command: '/bin/sh', args: ['-c', dieWithAgent(wrapped)] };
}
