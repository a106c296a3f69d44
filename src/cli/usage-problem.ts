import { closestName } from '../config/closest-name.js';
import { errorMessage } from '../errors/error-message.js';

/**
 * What `parseArgs` threw, in the CLI's words. An unknown flag names the flag it is a typo of, or
 * where the flags are listed, instead of Node's advice about positionals that start with '-'.
 */
export function usageProblem(error: unknown, options: Readonly<Record<string, unknown>>, help: string): string {
  const message = errorMessage(error);
  const unknown = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(message)?.[1] : undefined;
  if (unknown === undefined) return message;
  const meant = unknown.startsWith('--') ? closestName(unknown.slice(2).split('=')[0]!, Object.keys(options)) : undefined;
  return `unknown option ${unknown}: ${meant !== undefined ? `did you mean --${meant}?` : `${help} lists the options`}`;
}
