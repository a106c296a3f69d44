import { closestName } from './closest-name.js';

/** An unknown command-line option, with the known one it is a typo of, else where the options are listed. */
export function unknownOption(option: string, known: readonly string[], help: string): string {
  const meant = option.startsWith('--') ? closestName(option.slice(2).split('=')[0]!, known) : undefined;
  return `unknown option ${option}: ${meant !== undefined ? `did you mean --${meant}?` : `${help} lists the options`}`;
}
