import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { errorResult, textResult } from './tool-result.js';
import { resolveToolPath } from './resolve-tool-path.js';
import { isFileNotFound } from './is-file-not-found.js';
import { errorMessage } from '../errors/error-message.js';
import type { Runtime } from '../contracts/runtime.js';
import type { TextWindow, TextWindowLine, TextWindowOptions } from './text-window.js';
import { splitLines, textWindowFromText } from './text-window-from-text.js';

export const READ_FILE_DEFAULT_LIMIT = 2000;
/** Longer lines are cut: minified bundles would otherwise flood the context. */
export const READ_FILE_MAX_LINE_CHARS = 2000;
/** A window holds at most this many bytes of lines: a huge file is read a window at a time, never whole. */
export const READ_FILE_MAX_BYTES = 256 * 1024;

const parameters = z.strictObject({
  path: z.string().min(1).describe('File to read, relative to the working directory (or absolute).'),
  offset: z.number().int().positive().optional().describe('First line to read, 1-based. Default 1.'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Number of lines to read. Default ${READ_FILE_DEFAULT_LIMIT}.`),
});

/** Reads a text file through the runtime and numbers its lines like `cat -n`. */
export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file. Lines come back numbered (cat -n style); use offset and limit to page ' +
    `through large files (default ${READ_FILE_DEFAULT_LIMIT} lines, at most ${READ_FILE_MAX_BYTES / 1024} KB a call). Lines over ${READ_FILE_MAX_LINE_CHARS} characters are cut.`,
  parameters,
  risk: 'read',
  kind: 'read',
  title: (args) => `Read ${args.path}`,
  locations: (args, cwd) => [{ path: path.resolve(cwd, args.path), line: args.offset ?? 1 }],
  async execute(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok) return resolved.result;
    const { absolute, display } = resolved;

    const offset = args.offset ?? 1;
    const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
    let window: TextWindow;
    try {
      window = await readWindow(context.runtime, absolute, { offset, limit, maxBytes: READ_FILE_MAX_BYTES, signal: context.signal });
    } catch (error) {
      if (isFileNotFound(error)) return errorResult(`File not found: ${display}`);
      return errorResult(`Cannot read ${display}: ${errorMessage(error)}`);
    }
    if (window.binary) return errorResult(`${display} looks like a binary file; read_file reads text only.`);

    const locations = [{ path: absolute, line: offset }];
    const shown = window.lines;
    if (shown.length === 0) {
      if (offset === 1 && !window.more) return textResult(`(${display} is empty)`, { locations });
      if (window.totalLines !== undefined) return errorResult(`${display} has ${window.totalLines} lines; offset ${offset} is past the end.`);
      return errorResult(`${display}: offset ${offset} is past the end of the file.`);
    }
    const width = String(offset + shown.length - 1).length;
    const body = shown.map((line, i) => `${String(offset + i).padStart(Math.max(width, 6))}\t${cutLine(line)}`).join('\n');
    return textResult(body + continuation(window, offset + shown.length), { locations });
  },
});

/** The runtime's window; a custom runtime without windows reads the whole file. */
async function readWindow(runtime: Runtime, file: string, options: TextWindowOptions): Promise<TextWindow> {
  if (runtime.readTextWindow) return runtime.readTextWindow(file, options);
  const text = await runtime.readFile(file, options.signal ? { signal: options.signal } : {});
  const lines = splitLines(text);
  if (options.offset > lines.length) return { binary: text.includes('\u0000'), lines: [], more: false, byteCapped: false, totalLines: lines.length };
  return textWindowFromText(lines.slice(options.offset - 1).join('\n'), options, true);
}

/** How to read on, naming the args of the next call. */
function continuation(window: TextWindow, next: number): string {
  if (!window.more) return '';
  const remaining = window.totalLines === undefined ? undefined : window.totalLines - (next - 1);
  if (window.byteCapped) {
    const left = remaining === undefined ? '' : ` (${remaining} more lines)`;
    return `\n… the window stopped at read_file's ${READ_FILE_MAX_BYTES / 1024} KB cap${left}; use offset=${next} to continue.`;
  }
  if (remaining !== undefined) return `\n… ${remaining} more lines; use offset=${next} to continue.`;
  const size = window.size === undefined ? '' : ` (the file has ${formatBytes(window.size)})`;
  return `\n… more lines follow${size}; use offset=${next} to continue.`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

function cutLine(line: TextWindowLine): string {
  if (line.text.length <= READ_FILE_MAX_LINE_CHARS) return line.text;
  const length = line.cut ? `over ${READ_FILE_MAX_BYTES / 1024} KB` : Buffer.byteLength(line.text) === line.bytes ? `${line.text.length} characters` : `${line.bytes} bytes`;
  return `${line.text.slice(0, READ_FILE_MAX_LINE_CHARS)}… [line cut: ${length}]`;
}
