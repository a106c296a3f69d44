import type * as acp from '@agentclientprotocol/sdk';
import { JsonRpcBatches } from '../json-rpc/json-rpc-batches.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { asksForAcpV2 } from './asks-for-acp-v2.js';

/**
 * One ACP-over-HTTP connection's way to answer a JSON-RPC batch (the v2 draft) in the POST's
 * own response: the batch's entries go into the connection beside the messages the SDK
 * delivers, and the agent's answers to them are held back from the SDK (so they never reach
 * the SSE stream) until the whole batch can be answered as one array. Everything else passes
 * through untouched. Batches are answered only once the connection's `initialize` asked for v2.
 */
export class AcpHttpBatchLink {
  #inject: ((message: acp.AnyMessage) => void) | undefined;
  #batches: JsonRpcBatches | undefined;
  #initialized = false;

  constructor(private readonly limits: JsonRpcLimits) {}

  /** Whether this connection speaks v2 (it answers batches); v1 refuses them. */
  get answersBatches(): boolean {
    return this.#batches !== undefined;
  }

  /** The connection's stream as the agent should see it (wrap the SDK's stream with it first). */
  wrap(stream: acp.Stream): acp.Stream {
    const reader = stream.readable.getReader();
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (controller) => {
        this.#inject = (message) => {
          try {
            controller.enqueue(message);
          } catch {
            // The connection closed: nobody is left to answer the batch.
          }
        };
      },
      pull: async (controller) => {
        const next = await reader.read();
        if (next.done) return controller.close();
        this.#see(next.value);
        controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (message, controller) => {
        const taken = this.#batches && this.#batches.pending > 0 ? this.#batches.take(message) : undefined;
        if (!taken?.held) controller.enqueue(message);
      },
    });
    void outbound.readable.pipeTo(stream.writable).catch(() => undefined);
    return { readable, writable: outbound.writable };
  }

  /**
   * Dispatches a batch (a non-empty array within the limits) and resolves with its answer, one
   * response per request in order, or `undefined` when it held only notifications (or `signal` aborted).
   */
  answer(entries: unknown[], signal: AbortSignal, warn?: (message: string) => void): Promise<unknown[] | undefined> {
    const batches = this.#batches;
    if (!batches || !this.#inject) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      // A client that gives up stops waiting here; the answers still taken later are dropped.
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      const opened = batches.open(entries, resolve);
      for (const warning of opened.warnings) warn?.(`acp: ${warning}`);
      for (const message of opened.dispatch) this.#inject!(message as acp.AnyMessage);
      if (opened.waiting === 0) resolve(opened.complete);
    });
  }

  #see(message: acp.AnyMessage): void {
    if (this.#initialized) return;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (method !== 'initialize' || id === undefined || id === null) return;
    this.#initialized = true;
    if (asksForAcpV2(message as Record<string, unknown>)) this.#batches = new JsonRpcBatches(this.limits);
  }
}
