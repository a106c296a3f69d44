import { errorMessage } from '../errors/error-message.js';
import { redactSecrets, type SecretRedactor } from '../tools/redact-secrets.js';

const INTERNAL_ERROR_ADVICE =
  'The request was not completed; the server is still running. Retry it; if it fails again, the server log (stderr) has the details.';

let redact: SecretRedactor | undefined;

/**
 * What a client is told when its request failed inside the server (a store that cannot be
 * written, a bug): the cause (the error's message and its `code`, credentials redacted) and
 * what to do, never a bare "Internal error". `cause` is the error, or its message when an SDK
 * has already reduced it to one.
 */
export function internalErrorMessage(cause: unknown): string {
  const message = redactedForClient(typeof cause === 'string' ? cause : errorMessage(cause)).trim() || 'an unexpected error';
  const code = (cause as { code?: unknown } | null)?.code;
  const named = typeof code === 'string' && code.length > 0 && !message.includes(code) ? ` (${code})` : '';
  return `Internal error: ${message.replace(/\.$/, '')}${named}. ${INTERNAL_ERROR_ADVICE}`;
}

/** Text with the credentials it may carry (this process's secret variables, token shapes, URL passwords) redacted. */
export function redactedForClient(text: string): string {
  redact ??= redactSecrets();
  return redact(text);
}

/** Whether a JSON-RPC error message is a bare "Internal error" (an SDK's reduction of an unexpected exception). */
export function isBareInternalError(message: unknown): boolean {
  return typeof message === 'string' && /^internal error\.?$/i.test(message.trim());
}
