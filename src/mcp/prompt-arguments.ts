import type { Prompt } from '@modelcontextprotocol/client';

type PromptArgument = NonNullable<Prompt['arguments']>[number];

/**
 * The arguments of `/server:prompt rest`. One declared argument takes the whole text (a leading
 * `name=` is dropped). Several take `name=value` pairs (a value may be "double quoted") and
 * words in their declared order; the last argument still unfilled takes the rest of the text.
 * `missing` names the required arguments left empty.
 */
export function promptArguments(declared: readonly PromptArgument[], text: string): { args: Record<string, string>; missing: PromptArgument[] } {
  const args: Record<string, string> = {};
  if (declared.length === 1) {
    const only = declared[0]!;
    const value = text.startsWith(`${only.name}=`) ? text.slice(only.name.length + 1) : text;
    if (value !== '') args[only.name] = unquote(value.trim());
  } else {
    let rest = text.trim();
    while (rest !== '') {
      const named = /^([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)\s*/s.exec(rest);
      const argument = named && declared.find((candidate) => candidate.name === named[1]);
      if (named && argument) {
        args[argument.name] = unquote(named[2]!);
        rest = rest.slice(named[0].length);
        continue;
      }
      const unfilled = declared.filter((candidate) => args[candidate.name] === undefined);
      if (unfilled.length === 0) break;
      if (unfilled.length === 1) {
        args[unfilled[0]!.name] = unquote(rest);
        break;
      }
      const word = /^("(?:[^"\\]|\\.)*"|\S+)\s*/s.exec(rest)!;
      args[unfilled[0]!.name] = unquote(word[1]!);
      rest = rest.slice(word[0].length);
    }
  }
  for (const name of Object.keys(args)) if (args[name] === '') delete args[name];
  return { args, missing: declared.filter((argument) => argument.required && args[argument.name] === undefined) };
}

/** How to call the command, for its hint and a missing argument's error: `<name> [style]`. */
export function promptUsage(declared: readonly PromptArgument[]): string {
  return declared.map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`)).join(' ');
}

function unquote(value: string): string {
  return /^"(?:[^"\\]|\\.)*"$/s.test(value) ? value.slice(1, -1).replace(/\\(.)/gs, '$1') : value;
}
