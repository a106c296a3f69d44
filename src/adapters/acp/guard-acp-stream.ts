import type * as acp from '@agentclientprotocol/sdk';
import { inspectJsonRpcValue } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';

/**
 * The checks of `boundedNdJsonStream` for transports that parse before we see a message
 * (HTTP bodies, WebSocket frames): too-deep and malformed messages are answered with a
 * JSON-RPC error on the same connection instead of reaching the SDK's dispatcher.
 */
export function guardAcpStream(stream: acp.Stream, limits: JsonRpcLimits, warn?: (message: string) => void): acp.Stream {
  let reply!: (message: acp.AnyMessage) => void;
  const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    start(controller) {
      reply = (message) => {
        try {
          controller.enqueue(message);
        } catch {
          // The connection is closing: nobody is left to answer.
        }
      };
    },
  });
  const inbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const intake = inspectJsonRpcValue(message, limits);
      if ('accept' in intake) return controller.enqueue(intake.accept as acp.AnyMessage);
      warn?.(`acp: ${intake.warning}`);
      const replies = intake.reply === undefined ? [] : Array.isArray(intake.reply) ? intake.reply : [intake.reply];
      for (const response of replies) reply(response as acp.AnyMessage);
    },
  });
  void stream.readable.pipeTo(inbound.writable).catch(() => undefined);
  void outbound.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: inbound.readable, writable: outbound.writable };
}
