import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { errorResult, textResult } from './tool.js';
import { resolveToolPath } from './resolve-tool-path.js';
import { isFileNotFound } from './is-file-not-found.js';
import { errorMessage } from '../errors/error-message.js';

export const READ_FILE_DEFAULT_LIMIT = 2000;
/** Longer lines are cut: minified bundles would otherwise flood the context. */
export const READ_FILE_MAX_LINE_CHARS = 2000;

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
    `through large files (default ${READ_FILE_DEFAULT_LIMIT} lines). Lines over ${READ_FILE_MAX_LINE_CHARS} characters are cut.`,
  parameters,
  risk: 'read',
  kind: 'read',
  title: (args) => `Read ${args.path}`,
  locations: (args, cwd) => [{ path: path.resolve(cwd, args.path), line: args.offset ?? 1 }],
  async execute(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok) return resolved.result;
    const { absolute, display } = resolved;

    let text: string;
    try {
      text = await context.runtime.readFile(absolute, { signal: context.signal });
    } catch (error) {
      if (isFileNotFound(error)) return errorResult(`File not found: ${display}`);
      return errorResult(`Cannot read ${display}: ${errorMessage(error)}`);
    }
    if (text.includes('\u0000')) return errorResult(`${display} looks like a binary file; read_file reads text only.`);

    const lines = splitLines(text);
    const offset = args.offset ?? 1;
    const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
    const locations = [{ path: absolute, line: offset }];
    if (lines.length === 0) return textResult(`(${display} is empty)`, { locations });
    if (offset > lines.length) {
      return errorResult(`${display} has ${lines.length} lines; offset ${offset} is past the end.`);
    }

    const shown = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset + shown.length - 1).length;
    const body = shown
      .map((line, i) => `${String(offset + i).padStart(Math.max(width, 6))}\t${cutLine(line)}`)
      .join('\n');
    const remaining = lines.length - (offset - 1 + shown.length);
    const note = remaining > 0 ? `\n… ${remaining} more lines; use offset=${offset + shown.length} to continue.` : '';
    return textResult(body + note, { locations });
  },
});

/** Lines without their terminators; a final newline does not start an extra empty line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function cutLine(line: string): string {
  if (line.length <= READ_FILE_MAX_LINE_CHARS) return line;
  return `${line.slice(0, READ_FILE_MAX_LINE_CHARS)}… [line cut: ${line.length} characters]`;
}
