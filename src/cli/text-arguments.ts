/**
 * Arguments that are text, not flags, though they begin with '-': a task such as
 * `"- item one\n- item two"`, `"-5 °C outside: what to wear?"` or a file with front matter
 * (`"$(cat task.md)"`, `---\n…`). A flag's name never holds whitespace, so an argument whose part
 * before any '=' does is text. `parseArgs` would call it an unknown option (and only a `--` before
 * it, which makes every later flag text too, would get it through).
 */
export interface TextArguments {
  /** The arguments with each such text replaced by a stand-in that does not begin with '-'. */
  args: string[];
  /** The original text of a stand-in; any other value as it is. */
  restore(value: string): string;
}

const STAND_IN = '\u0000plaited-text-argument:';

export function textArguments(argv: readonly string[]): TextArguments {
  const texts: string[] = [];
  const args = argv.map((arg) => {
    if (!arg.startsWith('-') || !/\s/.test(arg.split('=', 1)[0]!)) return arg;
    texts.push(arg);
    return `${STAND_IN}${texts.length - 1}`;
  });
  return {
    args,
    restore: (value) => (value.startsWith(STAND_IN) ? (texts[Number(value.slice(STAND_IN.length))] ?? value) : value),
  };
}
