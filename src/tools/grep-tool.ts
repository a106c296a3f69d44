import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import { errorResult, textResult } from './tool-result.js';
import { displayPath, resolveToolPath } from './resolve-tool-path.js';
import { errorMessage } from '../errors/error-message.js';
import { ProcessSpawnError } from './process-spawn-error.js';
import { spawnProcess } from './spawn-process.js';
import { toolEnvironment } from './secret-env.js';
import { AGENT_STATE_RG_GLOBS } from './agent-state-path.js';
import { parseRipgrepJson, type RipgrepLine } from './parse-ripgrep-json.js';

export const GREP_DEFAULT_MAX_RESULTS = 100;
const GREP_LIMIT_MAX_RESULTS = 2000;
const GREP_TIMEOUT_MS = 60_000;
/** Matched lines longer than this are cut (minified files). */
const GREP_MAX_LINE_CHARS = 500;
/** rg's JSON is verbose; stop reading (and stop rg) past this many bytes. */
const GREP_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

export interface GrepToolOptions {
  /** The ripgrep binary; `rg` on PATH by default. */
  rgPath?: string;
  timeoutMs?: number;
}

const parameters = z.strictObject({
  pattern: z.string().min(1).describe('Regular expression (Rust regex syntax, as ripgrep).'),
  path: z.string().min(1).optional().describe('File or folder to search; default the working directory.'),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts".'),
  case_insensitive: z.boolean().optional().describe('Ignore case. Default false.'),
  context: z.number().int().min(0).max(20).optional().describe('Lines of context around each match.'),
  max_results: z
    .number()
    .int()
    .positive()
    .max(GREP_LIMIT_MAX_RESULTS)
    .optional()
    .describe(`Most matching lines to return. Default ${GREP_DEFAULT_MAX_RESULTS}.`),
});

/**
 * Searches file contents with ripgrep. rg is spawned directly (an args array,
 * no shell, so nothing in the pattern is interpreted) on the local disk, like
 * glob: searching is read-only and the Runtime contract has no search. Paths
 * are checked against the workspace; rg does not follow symlinks.
 */
export function createGrepTool(options: GrepToolOptions = {}): AnyTool {
  const rgPath = options.rgPath ?? 'rg';
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a regular expression (ripgrep). Respects .gitignore, skips .git and node_modules. ' +
      'Results are grouped by file with line numbers; narrow with path, glob or case_insensitive.',
    parameters,
    risk: 'read',
    kind: 'search',
    title: (args) => `Search ${JSON.stringify(args.pattern)}${args.path ? ` in ${args.path}` : ''}`,
    async execute(args, context): Promise<ToolResult> {
      const resolved = await resolveToolPath(args.path ?? '.', context);
      if (!resolved.ok) return resolved.result;
      const maxResults = args.max_results ?? GREP_DEFAULT_MAX_RESULTS;

      const rgArgs = ['--json', '--no-config', '--sort=path', '--hidden', '--glob=!.git/', '--glob=!node_modules/'];
      if (args.case_insensitive) rgArgs.push('--ignore-case');
      if (args.context) rgArgs.push(`--context=${args.context}`);
      if (args.glob) rgArgs.push(`--glob=${args.glob}`);
      // After the caller's glob: ripgrep lets the last matching glob win.
      rgArgs.push(...AGENT_STATE_RG_GLOBS);
      rgArgs.push('--regexp', args.pattern, '--', resolved.absolute);

      let run;
      try {
        run = await spawnProcess({
          file: rgPath,
          args: rgArgs,
          cwd: context.runtime.cwd,
          env: toolEnvironment(),
          signal: context.signal,
          timeoutMs: options.timeoutMs ?? GREP_TIMEOUT_MS,
          maxOutputBytes: GREP_MAX_OUTPUT_BYTES,
          keep: 'head',
          separateStderr: true,
        });
      } catch (error) {
        if (ProcessSpawnError.isInstance(error) && error.errno === 'ENOENT') {
          return errorResult(
            `grep needs ripgrep, but "${rgPath}" was not found. Install it (e.g. apt-get install ripgrep, brew install ripgrep) and make sure it is on PATH.`,
          );
        }
        return errorResult(`Cannot run ripgrep: ${errorMessage(error)}`);
      }

      if (run.aborted) return errorResult('Search cancelled.');
      if (run.timedOut) return errorResult(`Search timed out; narrow it with path or glob.`);
      const lines = parseRipgrepJson(run.output);
      // Exit 2 means an error; with matches it is usually an unreadable file, so keep the matches.
      const failed = run.exitCode === 2 || (run.exitCode === null && !run.truncated);
      if (failed && !lines.some((line) => line.kind === 'match')) {
        return errorResult(`ripgrep failed: ${run.stderr.trim() || `exit ${run.exitCode ?? run.signal}`}`);
      }
      return formatResults({
        lines,
        maxResults,
        cwd: context.runtime.cwd,
        pattern: args.pattern,
        where: resolved.display,
        cutShort: run.truncated,
        warnings: failed ? run.stderr.trim() : '',
      });
    },
  });
}

function formatResults(options: {
  lines: RipgrepLine[];
  maxResults: number;
  cwd: string;
  pattern: string;
  where: string;
  cutShort: boolean;
  warnings: string;
}): ToolResult {
  const out: string[] = [];
  let matches = 0;
  let files = 0;
  let lastFile: string | undefined;
  let lastLine = 0;
  let capped = false;
  for (const line of options.lines) {
    if (line.kind === 'match') {
      if (matches === options.maxResults) {
        capped = true;
        break;
      }
      matches++;
    } else if (matches === options.maxResults) {
      // Trailing context after the last shown match is still useful; context of the next one is not.
      if (line.path !== lastFile || line.lineNumber !== lastLine + 1) continue;
    }
    if (line.path !== lastFile) {
      if (lastFile !== undefined) out.push('');
      out.push(displayPath(line.path, options.cwd));
      lastFile = line.path;
      files++;
    } else if (line.lineNumber > lastLine + 1) {
      out.push('  --');
    }
    lastLine = line.lineNumber;
    const separator = line.kind === 'match' ? ':' : '-';
    out.push(`${String(line.lineNumber).padStart(6)}${separator} ${cut(line.text)}`);
  }
  if (matches === 0) return textResult(`No matches for ${JSON.stringify(options.pattern)} in ${options.where}.`);
  const notes: string[] = [];
  if (capped || options.cutShort) {
    notes.push(
      `… results capped at ${matches} matching lines; more exist. Narrow the search with path, glob or a more specific pattern.`,
    );
  }
  if (options.warnings) notes.push(`ripgrep warnings: ${options.warnings}`);
  const summary = `${matches} matching line${matches === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}.`;
  return textResult([...out, '', summary, ...notes].join('\n'));
}

function cut(text: string): string {
  return text.length <= GREP_MAX_LINE_CHARS ? text : `${text.slice(0, GREP_MAX_LINE_CHARS)}… [line cut]`;
}
