import { errorMessage } from './error-message.js';

/**
 * Runtimes report a missing file as ENOENT (local, sandbox) or only in words
 * (an ACP client's `fs/read_text_file` error); accept both.
 */
export function isFileNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return true;
  return /\b(ENOENT|no such file|not found|does not exist)\b/i.test(errorMessage(error));
}
