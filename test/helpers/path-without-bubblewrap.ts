import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PATH holding `programs` (from /usr/bin) and no `bwrap`: a machine without bubblewrap (macOS,
 * a container without user namespaces), where commands run bare, without the read-only layer.
 */
export function pathWithoutBubblewrap(programs: readonly string[]): string {
  const bin = mkdtempSync(join(tmpdir(), 'plaited-no-bwrap-'));
  for (const program of programs) symlinkSync(join('/usr/bin', program), join(bin, program));
  return bin;
}
