import type { McpServerConfig } from '../config/schema.js';

/**
 * Linux's limit on one argument or one environment entry (MAX_ARG_STRLEN, 32 pages), its
 * terminating NUL included: a longer one fails `execve` with E2BIG whatever the total.
 */
export const MAX_ARG_BYTES = 128 * 1024;

/** What to do about a command line the kernel refuses, said with each such error. */
const FIX =
  'Linux takes one argument or environment value of at most 128 KiB, and all of them together up to ARG_MAX (about 2 MB); ' +
  'put the long value in a file and pass its path (or the server\'s own config file)';

/**
 * The first argument or `env` value of a stdio server that the kernel would refuse on its own,
 * named with its size, or `undefined`. Checked on the config as written: a wrapper (the read-only
 * layer, the sandbox) passes each argument on as one argument.
 */
export function oversizedArgument(server: McpServerConfig): string | undefined {
  const words: Array<[string, string]> = [
    ['command', server.command ?? ''],
    ...server.args.map((arg, index): [string, string] => [`args[${index}]`, arg]),
    ...Object.entries(server.env ?? {}).map(([name, value]): [string, string] => [`env.${name}`, `${name}=${value}`]),
  ];
  for (const [field, word] of words) {
    const bytes = Buffer.byteLength(word) + 1;
    if (bytes > MAX_ARG_BYTES) return `its ${field} is ${kib(bytes)} long, over the 128 KiB the system takes for one; ${FIX}`;
  }
  return undefined;
}

/**
 * The message for a start the kernel refused (`spawn E2BIG`), or that would be refused (the
 * sandbox's wrap, `detail`): the arguments and environment together were too long.
 */
export function commandLineTooLong(serverId: string, detail = 'spawn E2BIG'): string {
  return `server "${serverId}" could not start: its command line and environment are too long for the system (${detail}). ${FIX}`;
}

function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}
