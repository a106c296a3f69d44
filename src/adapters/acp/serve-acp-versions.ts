import type * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '../../agent/agent.js';
import { asksForAcpV2 } from './asks-for-acp-v2.js';
import { explainInternalErrors } from './explain-internal-errors.js';
import { serveAcp } from './serve-acp.js';
import type { ServeAcpOptions } from './serve-acp-options.js';
import type { AcpConnectionHandle } from './acp-connection-handle.js';

export type { AcpConnectionHandle } from './acp-connection-handle.js';

/**
 * One ACP connection, served as the version the client asks for in `initialize`: v1 (stable), or
 * the v2 draft (experimental) through the SDK's protocol router. The first message is looked at
 * before anything is loaded, so v1 clients (every editor today) never pay for the draft's schemas;
 * a connection that does not start with a v2 `initialize` is v1's to answer.
 */
export function serveAcpVersions(agent: Agent, stream: acp.Stream, options: ServeAcpOptions = {}): AcpConnectionHandle {
  const reader = stream.readable.getReader();
  let served: AcpConnectionHandle | undefined;
  let closing = false;
  const closed = (async () => {
    const first = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (first.done || closing) {
      await reader.cancel().catch(() => undefined);
      // Not awaited: nothing was written, and a Node duplex given as the output (a PassThrough no
      // one reads) only reports its close once its other side is read, which may be never.
      void stream.writable.close().catch(() => undefined);
      return;
    }
    // The rest of the stream, with the first message put back in front.
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (controller) => controller.enqueue(first.value),
      pull: async (controller) => {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    // A handler's unexpected exception is answered naming its cause, not as a bare "Internal error".
    const replayed = explainInternalErrors({ readable, writable: stream.writable }, options.warn ?? options.log);
    if (asksForAcpV2(first.value)) {
      const { serveAcpWithRouter } = await import('./serve-acp-router.js');
      served = serveAcpWithRouter(agent, replayed, options);
    } else {
      served = serveAcp(agent, replayed, options);
    }
    if (closing) served.close();
    await served.closed;
  })();
  return {
    closed,
    close() {
      closing = true;
      if (served) served.close();
      else void reader.cancel().catch(() => undefined);
    },
  };
}
