import type { Part } from '@a2a-js/sdk';
import type { PermissionOption, PermissionOptionKind } from '../../contracts/agent-output.js';
import { plainText } from './a2a-prompt.js';

const WORDS: ReadonlyArray<[RegExp, PermissionOptionKind]> = [
  [/^(always|allow[ _-]?always|always[ _-]?allow)$/, 'allow_always'],
  [/^(allow|allow[ _-]?once|yes|y|ok|approve|approved)$/, 'allow_once'],
  [/^(reject[ _-]?always|never|always[ _-]?reject|deny[ _-]?always)$/, 'reject_always'],
  [/^(reject|reject[ _-]?once|no|n|deny|denied)$/, 'reject_once'],
];

/**
 * Reads a peer's answer to a permission question: a data part `{ "optionId": "allow-once" }`
 * or `{ "decision": "allow_always" }`, or a text reply (`allow`, `always`, `reject`, `never`,
 * yes/no). `undefined` when the message is not an answer.
 */
export function permissionAnswer(parts: readonly Part[], options: readonly PermissionOption[]): PermissionOption | undefined {
  for (const part of parts) {
    if (part.content?.$case !== 'data') continue;
    const value = part.content.value as { optionId?: unknown; decision?: unknown } | null;
    if (!value || typeof value !== 'object') continue;
    const byId = options.find((option) => option.optionId === value.optionId);
    if (byId) return byId;
    const byKind = options.find((option) => option.kind === value.decision);
    if (byKind) return byKind;
  }
  const text = plainText(parts).toLowerCase().replace(/[.!]+$/, '');
  const byId = options.find((option) => option.optionId === text);
  if (byId) return byId;
  const kind = WORDS.find(([pattern]) => pattern.test(text))?.[1];
  return kind ? options.find((option) => option.kind === kind) : undefined;
}

export function describeAnswers(options: readonly PermissionOption[]): string {
  return options.map((option) => `"${option.optionId}" (${option.name})`).join(', ');
}
