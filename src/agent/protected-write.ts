import { isProtectedPath, isProtectedSpelling } from '../tools/protected-paths.js';
import type { AnyTool } from '../contracts/tool.js';

/** Strings looked at per call: enough for any real argument object, bounded for a hostile one. */
const MAX_STRINGS = 2_000;
/** Where a shell word ends: blanks, quotes, redirections, separators, `=` of `--out=FILE`. */
const WORD_BREAK = /[\s'"`;&|<>()=,{}]+/;

/**
 * Whether a call that changes something could write a protected file (see
 * `src/tools/protected-paths.ts`): the paths the tool says it touches
 * (`locations`), or, for a tool that names none (bash, MCP tools), every string
 * in its arguments read as a path, whole and word by word (an MCP server's
 * `path`, a `bash` redirection). A match makes the
 * call a command that needs the user's yes, in every mode: reading arguments can
 * err only towards asking.
 */
export function touchesProtectedPath(tool: AnyTool, args: unknown, cwd: string): boolean {
  if (tool.risk === 'read') return false;
  if (tool.locations) {
    // A tool that names its targets (write_file, edit_file) is judged by them, not by the text it writes.
    // A path-like argument (one word) is checked too: `~/.bashrc` is the home's file, not `<cwd>/~`.
    try {
      if (tool.locations(args, cwd).some((location) => isProtectedPath(location.path, cwd))) return true;
      return strings(args).some((text) => !/\s/.test(text) && text.length < 4_096 && isProtectedPath(text, cwd));
    } catch {
      // Locations that cannot be computed for these arguments: read the strings instead.
    }
  }
  for (const text of strings(args)) {
    if (looksProtected(text, cwd)) return true;
  }
  return false;
}

/** Words whose links and hard links are looked up on disk; the rest are matched by spelling only. */
const MAX_WORDS_ON_DISK = 256;

function looksProtected(text: string, cwd: string): boolean {
  if (text.length === 0 || text.includes('\0')) return false;
  if (text.length <= 4_096 && isProtectedPath(text.trim(), cwd)) return true;
  const words = [...new Set(text.split(WORD_BREAK))].filter((word) => word.length > 0 && word.length <= 4_096 && word !== text);
  return words.some((word, index) => (index < MAX_WORDS_ON_DISK ? isProtectedPath(word, cwd) : isProtectedSpelling(word, cwd)));
}

function strings(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0 && out.length < MAX_STRINGS) {
    const current = stack.pop();
    if (typeof current === 'string') out.push(current);
    else if (Array.isArray(current)) stack.push(...current);
    else if (current && typeof current === 'object') stack.push(...Object.values(current));
  }
  return out;
}
