import { fstatSync } from 'node:fs';

/** More than any model's context holds many times over, and little enough to hold in memory. */
const MAX_PIPED_BYTES = 16 * 1024 * 1024;

/** `-p`'s stdin: its fd (to tell a pipe from a socket) and whether it is a terminal. */
export type PrintStdin = NodeJS.ReadableStream & { isTTY?: boolean; fd?: number };

/**
 * The task `-p` runs: the one given, followed by what a shell piped or redirected in
 * (`git diff | plaited-agent -p "review this"`, `< error.log`); without one, stdin is the task.
 * Beside a given task stdin is read only when it is a pipe or a file: a program that spawned the
 * CLI with a socket it neither writes to nor closes (Node's default `stdio: 'pipe'`) would
 * otherwise wait forever. `problem`: why the input cannot be sent, and what to do instead.
 */
export async function printTask(given: string | undefined, stdin: PrintStdin, limit = MAX_PIPED_BYTES): Promise<{ task?: string } | { problem: string }> {
  if (given !== undefined && !pipedIn(stdin)) return { task: given };
  if (given === undefined && stdin.isTTY) return {};
  const piped = await readPipedText(stdin, limit);
  if ('problem' in piped) return piped;
  if (given === undefined) return { task: piped.text };
  return { task: piped.text.trim() === '' ? given : `${given}\n\n<stdin>\n${piped.text.replace(/\n$/, '')}\n</stdin>` };
}

function pipedIn(stdin: PrintStdin): boolean {
  if (stdin.fd === undefined || stdin.isTTY) return false;
  try {
    const stat = fstatSync(stdin.fd);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}

/** The stream's text, up to `limit` bytes; binary data is refused rather than sent as mojibake. */
async function readPipedText(stream: NodeJS.ReadableStream, limit: number): Promise<{ text: string } | { problem: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    // Leaving the loop destroys the stream: the writer of a pipe gets EPIPE instead of filling our memory.
    if (size > limit) return { problem: `stdin holds more than ${limit / (1024 * 1024)} MiB, more than a prompt can carry: save it to a file and name the file in the task, so the agent reads the parts it needs` };
    chunks.push(bytes);
  }
  const bytes = Buffer.concat(chunks);
  const text = bytes.toString('utf8');
  if (bytes.includes(0) || mostlyUndecodable(text)) return { problem: 'stdin holds binary data (a NUL byte, or bytes that are not text), which a prompt cannot carry: pipe text, or name the file in the task' };
  return { text };
}

/** More than a tenth of the characters are U+FFFD: bytes, not text (a Latin-1 log has a few, and is sent). */
function mostlyUndecodable(text: string): boolean {
  let replaced = 0;
  for (const char of text) if (char === '\uFFFD') replaced++;
  return replaced > text.length / 10;
}
