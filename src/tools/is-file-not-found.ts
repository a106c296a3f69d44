import { errorMessage } from '../errors/error-message.js';

/** ACP's "Resource not found" error code (`RequestError.resourceNotFound`). */
const ACP_RESOURCE_NOT_FOUND = -32002;
const NOT_FOUND_WORDS = /\b(ENOENT|no such file|not found|does not exist)\b/i;

/**
 * Runtimes report a missing file in several shapes, and `write_file` must tell "absent"
 * from "unreadable" to create a file: ENOENT (local, sandbox); an ACP client's
 * `fs/read_text_file` error as -32002 "Resource not found", or any code with the cause
 * only in words, in the message or in `data` (acpx: -32603 with `data.details: "ENOENT…"`).
 */
export function isFileNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return NOT_FOUND_WORDS.test(String(error));
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code === 'ENOENT' || code === ACP_RESOURCE_NOT_FOUND) return true;
  if (NOT_FOUND_WORDS.test(errorMessage(error))) return true;
  return dataSaysNotFound(data);
}

/** `data` as a string, or an object whose string fields (`details`, `message`, `code`…) name the cause. */
function dataSaysNotFound(data: unknown): boolean {
  if (typeof data === 'string') return NOT_FOUND_WORDS.test(data);
  if (typeof data !== 'object' || data === null) return false;
  return Object.values(data).some((value) => typeof value === 'string' && NOT_FOUND_WORDS.test(value));
}
