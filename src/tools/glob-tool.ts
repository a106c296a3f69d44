import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { errorResult, textResult } from './tool-result.js';
import { displayPath, resolveToolPath } from './resolve-tool-path.js';
import { errorMessage } from '../errors/error-message.js';
import { isWithin } from './workspace-path.js';
import { AGENT_STATE_IGNORES } from './agent-state-path.js';

export const GLOB_MAX_RESULTS = 1000;
const IGNORED = ['**/node_modules/**', '**/.git/**', ...AGENT_STATE_IGNORES];

const parameters = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/*.test.ts".'),
  path: z.string().min(1).optional().describe('Folder to search in; default the working directory.'),
});

/**
 * Finds files by name pattern. Unlike the other file tools this reads the local
 * disk directly instead of going through the Runtime: discovery is read-only,
 * the Runtime contract has no directory listing, and the ACP client's fs methods
 * cannot list folders. Paths are still checked against the workspace, the
 * pattern may not climb out of it, and symlinked folders are not followed.
 */
export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by glob pattern (e.g. "**/*.ts"). Returns paths relative to the working directory, sorted; ' +
    `node_modules and .git are skipped; at most ${GLOB_MAX_RESULTS} results.`,
  parameters,
  risk: 'read',
  kind: 'search',
  title: (args) => (args.path ? `Find ${args.pattern} in ${args.path}` : `Find ${args.pattern}`),
  async execute(args, context) {
    const resolved = await resolveToolPath(args.path ?? '.', context);
    if (!resolved.ok) return resolved.result;
    if (path.isAbsolute(args.pattern) || args.pattern.split(/[\\/]/).includes('..')) {
      return errorResult(
        `Pattern "${args.pattern}" must be relative and must not contain "..": pass the folder as "path" instead.`,
      );
    }

    // tinyglobby brings fdir, which requires picomatch's CommonJS copy from node_modules at load: both wait for the first search.
    const { glob } = await import('tinyglobby');
    let found: string[];
    try {
      found = await glob(args.pattern, {
        cwd: resolved.absolute,
        ignore: IGNORED,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        absolute: true,
      });
    } catch (error) {
      return errorResult(`Cannot search ${resolved.display}: ${errorMessage(error)}`);
    }

    const cwd = context.runtime.cwd;
    // Brace expansion ("{..,src}/*") can still climb out; only what lies below the base counts.
    const paths = found
      .filter((file) => isWithin(path.resolve(file), resolved.absolute))
      .map((file) => displayPath(file, cwd))
      .sort(compareStrings);
    if (paths.length === 0) return textResult(`No files match "${args.pattern}" in ${resolved.display}.`);
    const shown = paths.slice(0, GLOB_MAX_RESULTS);
    const note =
      paths.length > shown.length
        ? `\n… ${paths.length - shown.length} more files not shown (${shown.length} of ${paths.length}); use a narrower pattern or path.`
        : '';
    return textResult(shown.join('\n') + note);
  },
});

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
