import { A2AError } from '@a2a-js/sdk/errors';
import { internalErrorMessage } from '../internal-error-message.js';
import { explainA2aRefusal } from './explain-a2a-refusal.js';

type RpcError = { code: number; message: string; data?: unknown };

/**
 * An unexpected exception as the SDK maps it to JSON-RPC (`-32603` with the exception's bare
 * message, no A2A ErrorInfo) with a message naming the cause (credentials redacted) and what to
 * do. `cause` is the exception when known, else the SDK's message is; A2A's own errors pass as they
 * are, except a refusal on an ended task, which says what to do instead ({@link explainA2aRefusal}).
 */
export function explainRpcError<E extends RpcError>(mapped: E, cause: unknown = mapped.message): E {
  const refusal = explainA2aRefusal(mapped.message);
  if (refusal !== mapped.message) return { ...mapped, message: refusal };
  if (mapped.code !== -32603 || mapped.data !== undefined || cause instanceof A2AError) return mapped;
  if (typeof cause === 'string' && cause.startsWith('Internal error: ')) return mapped;
  return { ...mapped, message: internalErrorMessage(cause) };
}
