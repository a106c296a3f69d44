import { statSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';

/**
 * `additionalDirectories` of session/new, load or resume: each must be an existing absolute
 * directory (normalized, duplicates and the cwd itself dropped); anything else is -32602
 * naming the entry, and nothing is stored.
 */
export function checkAdditionalDirectories(directories: readonly string[] | null | undefined, cwd: string): string[] {
  const checked: string[] = [];
  for (const [index, directory] of (directories ?? []).entries()) {
    const field = `additionalDirectories[${index}]`;
    if (typeof directory !== 'string' || !isAbsolute(directory) || directory.includes('\0')) {
      throw acp.RequestError.invalidParams({ [field]: directory }, `${field} must be an absolute path`);
    }
    const path = normalize(directory).replace(/(.)\/+$/, '$1');
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      // Reported below, the same as a file.
    }
    if (!isDirectory) throw acp.RequestError.invalidParams({ [field]: directory }, `${field} is not an existing directory`);
    if (path !== normalize(cwd) && !checked.includes(path)) checked.push(path);
  }
  return checked;
}
