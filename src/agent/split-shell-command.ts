import { parse, quote } from 'shell-quote';

/** One simple command of a shell line: its words, and where its output goes. */
export interface ShellPart {
  words: string[];
  /** Redirections as written, operator then target (`> out.txt`, `2>&1` is `>& 1`). */
  redirects: string[];
  /** Whether a redirection writes a file (anything but `/dev/null` or another descriptor). */
  writesFile: boolean;
}

/** Separators between simple commands (`(`/`)` delimit subshells, whose parts are parts too). */
const SEPARATORS = new Set([';', '&&', '||', '|', '|&', '&', '(', ')']);
/** Redirections whose target is the next word. */
const WRITES = new Set(['>', '>>', '>|', '&>', '>&']);
const READS = new Set(['<', '<<<']);
/** Bash keywords: a line that uses them is a compound statement this splitter does not follow. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'select', 'function', '{', '}', '!', '[[', ']]', 'coproc', 'time']);
/** Characters bash expands in a word whose quoting `shell-quote` does not report back: not judged. */
const EXPANDS = /[{}~*?[\]]/;
const MAX_LENGTH = 8_192;

/**
 * Splits a `bash` command line into its simple commands, so that a permission rule is
 * checked against every one of them. `undefined` when the line holds anything this cannot
 * follow exactly — substitutions (`$(…)`, backticks, `<(…)`), variables, here-docs,
 * ANSI-C quotes (`$'…'`), comments, newlines, brace/glob/tilde expansion, keywords (`if`, `for`, …): such a line is
 * never covered by a rule, so it is asked about.
 */
export function splitShellCommand(command: string): ShellPart[] | undefined {
  if (command.length === 0 || command.length > MAX_LENGTH || /[\n\r\0`]|\$['"]/.test(command)) return undefined;
  let unknown = false;
  let tokens: ReturnType<typeof parse>;
  try {
    tokens = parse(command, () => {
      unknown = true;
      return '';
    });
  } catch {
    return undefined;
  }
  if (unknown) return undefined;
  const parts: ShellPart[] = [];
  let current: ShellPart = { words: [], redirects: [], writesFile: false };
  const close = () => {
    if (current.words.length > 0) parts.push(current);
    else if (current.redirects.length > 0) unknown = true;
    current = { words: [], redirects: [], writesFile: false };
  };
  for (let index = 0; index < tokens.length && !unknown; index++) {
    const token = tokens[index]!;
    if (typeof token === 'string') {
      if (EXPANDS.test(token) || (current.words.length === 0 && KEYWORDS.has(token))) unknown = true;
      current.words.push(token);
      continue;
    }
    if (!('op' in token) || token.op === 'glob') {
      unknown = true;
      continue;
    }
    if (SEPARATORS.has(token.op)) {
      close();
      continue;
    }
    const target = tokens[index + 1];
    if ((!WRITES.has(token.op) && !READS.has(token.op)) || typeof target !== 'string' || EXPANDS.test(target)) {
      unknown = true;
      continue;
    }
    index++;
    current.redirects.push(`${token.op} ${quote([target])}`);
    if (WRITES.has(token.op) && target !== '/dev/null' && !(token.op === '>&' && /^(\d+|-)$/.test(target))) current.writesFile = true;
  }
  close();
  return unknown || parts.length === 0 ? undefined : parts;
}

/** A part written back as one line (`echo hi > out.txt`), as a rule names it. */
export function formatShellPart(part: ShellPart): string {
  return [quote(part.words), ...part.redirects].join(' ');
}

/** Whether two parts are the same command with the same redirections. */
export function sameShellPart(a: ShellPart, b: ShellPart): boolean {
  return a.words.length === b.words.length && a.words.every((word, i) => word === b.words[i]) && a.redirects.join('\0') === b.redirects.join('\0');
}
