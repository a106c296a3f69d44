import type * as acp from '@agentclientprotocol/sdk';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { Agent } from '../../agent/agent.js';
import { serveAcpV2 } from './acp-v2-agent.js';
import { serveAcp } from './serve-acp.js';
import type { ServeAcpOptions } from './serve-acp-options.js';
import type { AcpConnectionHandle } from './acp-connection-handle.js';

/**
 * One ACP connection through the SDK's protocol router, which picks v1 (stable) or the v2 draft
 * (experimental) by the version the client's `initialize` asks for. Loaded only when a client asks
 * for v2: the draft's schemas cost about as much start-up time as v1's.
 */
export function serveAcpWithRouter(agent: Agent, stream: acp.Stream, options: ServeAcpOptions = {}): AcpConnectionHandle {
  let routed: { close(): void } | undefined;
  const lifecycle = v2
    .agentProtocolRouter()
    .withV1({ connect: (v1Stream: acp.Stream) => (routed = serveAcp(agent, v1Stream, options)) })
    .withV2({ connect: (v2Stream: v2.Stream) => (routed = serveAcpV2(agent, v2Stream, options)) })
    .connect(stream);
  return {
    closed: lifecycle.closed,
    close() {
      if (routed) routed.close();
      // Not routed yet (no initialize): end the stream, which ends the router.
      else void stream.writable.abort(new Error('connection closed')).catch(() => undefined);
    },
  };
}
