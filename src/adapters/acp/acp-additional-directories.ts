import * as acp from '@agentclientprotocol/sdk';
import { checkedCwd } from './acp-request-checks.js';

/**
 * `additionalDirectories` of session/new, load or resume: each must pass the same checks as a
 * session's cwd (an existing, writable, absolute and normalized directory, no pseudo-filesystem;
 * see `validateSessionCwd`). Duplicates and the cwd itself are dropped; anything else is -32602
 * naming the entry, and nothing is stored.
 */
export async function checkAdditionalDirectories(directories: readonly string[] | null | undefined, cwd: string): Promise<string[]> {
  if (directories != null && !Array.isArray(directories)) {
    throw acp.RequestError.invalidParams({ field: 'additionalDirectories' }, 'additionalDirectories must be an array of absolute paths');
  }
  const checked: string[] = [];
  for (const [index, directory] of (directories ?? []).entries()) {
    const path = await checkedCwd(directory, `additionalDirectories[${index}]`);
    if (path !== cwd && !checked.includes(path)) checked.push(path);
  }
  return checked;
}
