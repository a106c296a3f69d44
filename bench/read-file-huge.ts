import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'read-file-huge-main.js');

/**
 * RSS and event-loop delay while `read_file` reads a 300 MB text file (three calls in
 * parallel), each way in a fresh process: `whole` reads the whole file as the tool did
 * before it read windows, `window` is today's streamed window with its byte cap.
 */
export async function benchReadFileHuge(megabytes = 300): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-bench-read-'));
  try {
    const file = join(dir, 'huge.log');
    await writeTextFile(file, megabytes * 1024 * 1024);
    const result: Record<string, number> = {};
    for (const mode of ['whole', 'window'] as const) {
      const run = spawnSync(process.execPath, [MAIN, mode, file], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
      const line = run.stdout.trim().split('\n').pop() ?? '';
      if (!line.startsWith('{')) throw new Error(`read_file bench (${mode}) failed: ${run.stderr.slice(-500)}`);
      const measured = JSON.parse(line) as { ms: number; maxLoopDelayMs: number; peakRssMb: number; answered: boolean };
      result[`${mode}Ms`] = measured.ms;
      result[`${mode}MaxLoopDelayMs`] = measured.maxLoopDelayMs;
      result[`${mode}PeakRssMb`] = measured.peakRssMb;
      result[`${mode}Answered`] = measured.answered ? 1 : 0;
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `bytes` of numbered log lines, written through a stream. */
async function writeTextFile(file: string, bytes: number): Promise<void> {
  const out = createWriteStream(file);
  let written = 0;
  let line = 1;
  while (written < bytes) {
    const block: string[] = [];
    for (let i = 0; i < 10_000; i++) block.push(`entry ${line++}: the quick brown fox jumps over the lazy dog`);
    const text = `${block.join('\n')}\n`;
    written += Buffer.byteLength(text);
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}
