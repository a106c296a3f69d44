import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { errorResult, textResult } from './tool-result.js';
import { resolveToolPath } from './resolve-tool-path.js';
import { isFileNotFound } from './is-file-not-found.js';
import { FileTooLargeError } from './file-too-large-error.js';
import { errorMessage } from '../errors/error-message.js';

const parameters = z.strictObject({
  path: z.string().min(1).describe('File to write, relative to the working directory (or absolute).'),
  content: z.string().describe('The complete new content of the file.'),
});

/** Creates or overwrites a whole file; parent folders are created. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Write a whole file, creating it (and its parent folders) or replacing its content. ' +
    'Prefer edit_file for changes to an existing file.',
  parameters,
  risk: 'write',
  kind: 'edit',
  title: (args) => `Write ${args.path}`,
  locations: (args, cwd) => [{ path: path.resolve(cwd, args.path) }],
  async preview(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok) return undefined;
    let oldText: string | null;
    try {
      oldText = await context.runtime.readFile(resolved.absolute, { signal: context.signal });
    } catch (error) {
      // A file too large to read whole, or not a file: the question goes without a diff.
      if (!isFileNotFound(error)) return undefined;
      oldText = null;
    }
    return [{ type: 'diff', path: resolved.absolute, oldText, newText: args.content }];
  },
  async execute(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok) return resolved.result;
    const { absolute, display } = resolved;

    // undefined: the file exists but is too large to read whole for a diff; it is overwritten all the same.
    let oldText: string | null | undefined;
    try {
      oldText = await context.runtime.readFile(absolute, { signal: context.signal });
    } catch (error) {
      if (FileTooLargeError.isInstance(error)) oldText = undefined;
      else if (!isFileNotFound(error)) return errorResult(`Cannot write ${display}: ${errorMessage(error)}`);
      else oldText = null;
    }
    try {
      await context.runtime.writeFile(absolute, args.content, { signal: context.signal });
    } catch (error) {
      return errorResult(`Cannot write ${display}: ${errorMessage(error)}`);
    }

    const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0);
    const what = oldText === null ? 'Created' : oldText === args.content ? 'Rewrote (unchanged)' : 'Overwrote';
    const summary = `${what} ${display} (${lines} lines, ${Buffer.byteLength(args.content)} bytes).`;
    if (oldText === undefined) return textResult(`${summary} The previous content was too large to show a diff.`, { locations: [{ path: absolute }] });
    return textResult(summary, {
      display: [{ type: 'diff', path: absolute, oldText, newText: args.content }],
      locations: [{ path: absolute }],
    });
  },
});
