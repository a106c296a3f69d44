import { unknownOption } from '../config/unknown-option.js';
import { errorMessage } from '../errors/error-message.js';

/**
 * What `parseArgs` threw, in the CLI's words. An unknown flag names the flag it is a typo of, or
 * where the flags are listed, instead of Node's advice about positionals that start with '-'.
 */
export function usageProblem(error: unknown, options: Readonly<Record<string, unknown>>, help: string): string {
  const message = errorMessage(error);
  const unknown = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(message)?.[1] : undefined;
  return unknown === undefined ? message : unknownOption(unknown, Object.keys(options), help);
}
