import type * as acp from '@agentclientprotocol/sdk';
import { internalErrorMessage, isBareInternalError, redactedForClient } from '../internal-error-message.js';

type ErrorReply = { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string; data?: unknown } };

/**
 * The SDK answers a handler's unexpected exception (a store that cannot be written, a bug) as a
 * bare `-32603 "Internal error"` with the exception's message in `data.details`. On the way out
 * such an answer gets a message naming the cause (credentials redacted, in `data.details` too)
 * and what to do; the cause goes to `warn`. Every other message passes as it is.
 */
export function explainInternalErrors(stream: acp.Stream, warn?: (message: string) => void): acp.Stream {
  const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      controller.enqueue(explained(message, warn));
    },
  });
  void outbound.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: stream.readable, writable: outbound.writable };
}

function explained(message: acp.AnyMessage, warn: ((message: string) => void) | undefined): acp.AnyMessage {
  const reply = message as Partial<ErrorReply>;
  if (!reply.error || reply.error.code !== -32603 || !isBareInternalError(reply.error.message)) return message;
  const data = reply.error.data as { details?: unknown } | undefined;
  const details = typeof data?.details === 'string' ? data.details : undefined;
  const text = internalErrorMessage(details ?? 'an unexpected error in the server');
  warn?.(`acp: request ${JSON.stringify(reply.id ?? null)} failed: ${details ?? 'an unexpected error'}`);
  const cause = details === undefined ? data : { ...data, details: redactedForClient(details) };
  return { ...reply, error: { ...reply.error, message: text, ...(cause === undefined ? {} : { data: cause }) } } as acp.AnyMessage;
}
