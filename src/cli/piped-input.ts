import { fstatSync } from 'node:fs';
import { errorMessage } from '../errors/error-message.js';

/** More than any model's context holds many times over, and little enough to hold in memory. */
const MAX_PIPED_BYTES = 16 * 1024 * 1024;
/** How long a pipe beside a task may stay silent before it is taken for one nobody writes to. */
const SILENT_PIPE_MS = 3_000;

/** `-p`'s stdin: its fd (to tell a pipe from a socket) and whether it is a terminal. */
export type PrintStdin = NodeJS.ReadableStream & { isTTY?: boolean; fd?: number; destroy?(): void };

/** What `-p` runs: the task, and a notice for stderr; or why the input cannot be sent, and what to do instead. */
export type PrintTask = { task?: string; notice?: string } | { problem: string };

/**
 * The task `-p` runs: the one given, followed by what a shell piped or redirected in
 * (`git diff | plaited-agent -p "review this"`, `< error.log`); without one, stdin is the task.
 * Beside a given task stdin is read only when it is a pipe or a file, and a pipe only once it
 * sends something or ends within `silentMs`: a program that spawned the CLI with a socket or a
 * pipe it neither writes to nor closes (Node's `stdio: 'pipe'`, Java's ProcessBuilder) would
 * otherwise make the run wait forever.
 */
export async function printTask(given: string | undefined, stdin: PrintStdin, options: { limit?: number; silentMs?: number } = {}): Promise<PrintTask> {
  const { limit = MAX_PIPED_BYTES, silentMs = SILENT_PIPE_MS } = options;
  if (given === undefined) {
    if (stdin.isTTY) return {};
    const piped = await readPipedText(stdin, limit);
    return 'problem' in piped ? piped : { task: piped.text };
  }
  const kind = stdinKind(stdin);
  if (kind === undefined) return { task: given };
  if (kind === 'pipe' && !(await speaksWithin(stdin, silentMs))) {
    stdin.destroy?.();
    return {
      task: given,
      notice: `stdin is a pipe that sent nothing for ${silentMs / 1000} s and did not end, so the task runs without it; a program that starts plaited-agent should close its stdin (or give it /dev/null) to skip this wait`,
    };
  }
  const piped = await readPipedText(stdin, limit);
  if ('problem' in piped) return piped;
  return { task: piped.text.trim() === '' ? given : `${given}\n\n<stdin>\n${piped.text.replace(/\n$/, '')}\n</stdin>` };
}

function stdinKind(stdin: PrintStdin): 'pipe' | 'file' | undefined {
  if (stdin.fd === undefined || stdin.isTTY) return undefined;
  try {
    const stat = fstatSync(stdin.fd);
    return stat.isFIFO() ? 'pipe' : stat.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the stream has data, ends or fails within `ms` (what it has stays buffered for the reader). */
function speaksWithin(stream: NodeJS.ReadableStream, ms: number): Promise<boolean> {
  const events = ['readable', 'end', 'error'] as const;
  return new Promise((resolve) => {
    const settle = (spoke: boolean) => {
      clearTimeout(timer);
      for (const event of events) stream.off(event, onSpoke);
      resolve(spoke);
    };
    const onSpoke = () => settle(true);
    const timer = setTimeout(() => settle(false), ms);
    for (const event of events) stream.once(event, onSpoke);
  });
}

/** The stream's text, up to `limit` bytes; binary data is refused rather than sent as mojibake. */
async function readPipedText(stream: NodeJS.ReadableStream, limit: number): Promise<{ text: string } | { problem: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      // Leaving the loop destroys the stream: the writer of a pipe gets EPIPE instead of filling our memory.
      if (size > limit) return { problem: `stdin holds more than ${limit / (1024 * 1024)} MiB, more than a prompt can carry: save it to a file and name the file in the task, so the agent reads the parts it needs` };
      chunks.push(bytes);
    }
  } catch (error) {
    return { problem: `stdin could not be read (${errorMessage(error)}): pass the task as an argument, or name a file in it` };
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
