import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { errorResult, textResult } from './tool-result.js';
import { resolveToolPath } from './resolve-tool-path.js';
import { isFileNotFound } from './is-file-not-found.js';
import { errorMessage } from '../errors/error-message.js';

const parameters = z.strictObject({
  path: z.string().min(1).describe('File to edit, relative to the working directory (or absolute).'),
  old_string: z.string().describe('Exact text to replace, including whitespace; must be unique unless replace_all.'),
  new_string: z.string().describe('Text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one. Default false.'),
});

/** Exact string replacement in an existing file; answers with a unified diff. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace an exact string in a file. old_string must match the file exactly (whitespace included) ' +
    'and occur once, unless replace_all is true. Read the file first; include enough context to be unique.',
  parameters,
  risk: 'write',
  kind: 'edit',
  title: (args) => `Edit ${args.path}`,
  locations: (args, cwd) => [{ path: path.resolve(cwd, args.path) }],
  async preview(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok || args.old_string === '' || args.old_string === args.new_string) return undefined;
    const oldText = await context.runtime.readFile(resolved.absolute, { signal: context.signal }).catch(() => undefined);
    if (oldText === undefined) return undefined;
    const edit = applyEdit(oldText, args, resolved.display);
    return edit.ok ? [{ type: 'diff', path: resolved.absolute, oldText, newText: edit.newText }] : undefined;
  },
  async execute(args, context) {
    const resolved = await resolveToolPath(args.path, context);
    if (!resolved.ok) return resolved.result;
    const { absolute, display } = resolved;

    if (args.old_string === '') {
      return errorResult('old_string is empty; to create a file or replace it whole, use write_file.');
    }
    if (args.old_string === args.new_string) {
      return errorResult('old_string and new_string are identical; there is nothing to change.');
    }

    let oldText: string;
    try {
      oldText = await context.runtime.readFile(absolute, { signal: context.signal });
    } catch (error) {
      if (isFileNotFound(error)) return errorResult(`File not found: ${display} (use write_file to create it).`);
      return errorResult(`Cannot read ${display}: ${errorMessage(error)}`);
    }

    const edit = applyEdit(oldText, args, display);
    if (!edit.ok) return errorResult(edit.error);
    const { newText, firstIndex, count } = edit;

    try {
      await context.runtime.writeFile(absolute, newText, { signal: context.signal });
    } catch (error) {
      return errorResult(`Cannot write ${display}: ${errorMessage(error)}`);
    }

    const line = oldText.slice(0, firstIndex).split('\n').length;
    const { createTwoFilesPatch } = await import('diff'); // with the first edit, not with every start
    // Without the "Index:" and "====" header lines: tokens the model does not need.
    const patch = createTwoFilesPatch(display, display, oldText, newText, undefined, undefined, { context: 3 })
      .split('\n')
      .filter((line, i) => !(i < 2 && (line.startsWith('Index: ') || /^=+$/.test(line))))
      .join('\n');
    const replaced = count === 1 ? '1 replacement' : `${count} replacements`;
    return textResult(`Edited ${display} (${replaced}).\n${patch}`, {
      display: [{ type: 'diff', path: absolute, oldText, newText }],
      locations: [{ path: absolute, line }],
    });
  },
});

type Edit = { ok: true; newText: string; firstIndex: number; count: number } | { ok: false; error: string };

/** The file's text after the edit, or why the edit does not apply (what the model is told). */
function applyEdit(oldText: string, args: { old_string: string; new_string: string; replace_all?: boolean | undefined }, display: string): Edit {
  let search = args.old_string;
  let replacement = args.new_string;
  let count = countOccurrences(oldText, search);
  // Models write "\n"; a CRLF file would never match. Retry with the file's line endings.
  if (count === 0 && oldText.includes('\r\n') && search.includes('\n') && !search.includes('\r\n')) {
    search = search.replace(/\n/g, '\r\n');
    replacement = replacement.replace(/\r?\n/g, '\r\n');
    count = countOccurrences(oldText, search);
  }
  if (count === 0) {
    return { ok: false, error: `old_string was not found in ${display}. It must match exactly, whitespace and indentation included; read the file again.` };
  }
  if (count > 1 && !args.replace_all) {
    return { ok: false, error: `old_string appears ${count} times in ${display}; include more surrounding context to make it unique, or set replace_all=true.` };
  }
  const firstIndex = oldText.indexOf(search);
  // split/join, not String.replace: `$&` and friends in new_string must stay literal.
  const newText = args.replace_all
    ? oldText.split(search).join(replacement)
    : oldText.slice(0, firstIndex) + replacement + oldText.slice(firstIndex + search.length);
  return { ok: true, newText, firstIndex, count };
}

/** Non-overlapping occurrences, as split/join would replace them. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count++;
  return count;
}
