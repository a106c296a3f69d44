import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../../tools/shell-quote.js';

/** Past this many bytes a sandboxed server's argv goes through a file instead of the wrapper's line. */
export const ARGV_INLINE_BYTES = 16 * 1024;

/**
 * The bash line that execs `argv`, and what removes what it needs once the program is gone for
 * good. The sandbox's wrappers each take the line as one quoted argument, and it is written into
 * bubblewrap's start more than once (retry-bwrap-start.ts): a 50 KB argument made a line past
 * Linux's 128 KiB for one argument (E2BIG). A long argv is written to a private file, NUL
 * between words, and read back as it was (a restart reads the same file).
 */
export async function execArgvLine(argv: readonly string[]): Promise<{ line: string; remove: () => Promise<void> }> {
  const inline = argv.map(shellQuote).join(' ');
  if (Buffer.byteLength(inline) <= ARGV_INLINE_BYTES) return { line: `exec ${inline}`, remove: async () => undefined };
  const folder = await mkdtemp(join(tmpdir(), 'plaited-argv-'));
  const file = join(folder, 'argv');
  await writeFile(file, argv.map((word) => `${word}\0`).join(''), { mode: 0o600 });
  return {
    line: `mapfile -d '' -t _pl_argv < ${shellQuote(file)} || exit 126\nexec "\${_pl_argv[@]}"`,
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}
