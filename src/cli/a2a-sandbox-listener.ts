import { A2A_LISTEN_FD_ENV, openInheritableListener } from '../adapters/a2a/inherited-listener.js';
import type { PlaitedConfig } from '../config/schema.js';
import { a2aOptions } from './a2a-options.js';
import type { CliArgs } from './parse-cli-args.js';
import type { Log } from './stderr-log.js';

/**
 * For `--adapter sandbox --adapter a2a`: binds the A2A port here, outside the sandbox, and
 * returns what `runSandboxed` needs to hand the socket to the agent as fd 3 (`null` when
 * the port cannot be bound; the reason is on stderr).
 */
export async function a2aSandboxListener(
  config: PlaitedConfig,
  args: CliArgs,
  log: Log,
): Promise<{ inheritFds: number[]; env: NodeJS.ProcessEnv; onStart: () => void } | null> {
  const options = a2aOptions(config, args, log, '');
  try {
    const listener = await openInheritableListener(options.host!, options.port!);
    return { inheritFds: [listener.fd], env: { ...process.env, [A2A_LISTEN_FD_ENV]: '3' }, onStart: () => listener.release() };
  } catch (error) {
    process.stderr.write(`plaited-agent: cannot listen for A2A on ${options.host}:${options.port}: ${(error as Error).message}\n`);
    return null;
  }
}
