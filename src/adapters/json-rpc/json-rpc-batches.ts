import { INVALID_REQUEST, errorResponse, inspectJsonRpcValue, type JsonRpcErrorResponse } from './inspect-json-rpc.js';
import { textNestsDeeperThan } from './json-nesting-depth.js';
import type { JsonRpcLimits } from './json-rpc-limits.js';

interface Batch {
  /** One slot per request of the batch, in its order; filled as answers come. */
  replies: unknown[];
  waiting: number;
  onComplete?: (replies: unknown[]) => void;
}

/** What to do with an incoming batch: the messages to dispatch one by one, and its answer when already complete. */
export interface OpenedBatch {
  dispatch: Array<Record<string, unknown>>;
  /** The whole answer, when no request of the batch is left to answer (undefined: nothing to send). */
  complete?: unknown[];
  /** Requests of the batch still waiting for their answer (0: `complete`, or nothing to answer). */
  waiting: number;
  warnings: string[];
}

/**
 * JSON-RPC 2.0 batches on a connection that serves them (the ACP v2 draft): each entry is checked
 * like a single message and dispatched on its own; the answers to its requests are held back as
 * they are written and sent together, as one array, once the last one is in. Notifications get
 * no answer, and a batch of only notifications none at all. Invalid entries are answered in
 * place (-32600, with their id when they have a usable one).
 */
export class JsonRpcBatches {
  readonly #byId = new Map<string, { batch: Batch; slot: number }>();

  constructor(private readonly limits: JsonRpcLimits) {}

  /** Requests of open batches still waiting for their answer. */
  get pending(): number {
    return this.#byId.size;
  }

  /**
   * `entries` is a non-empty array whose size and depth were checked as a whole. `onComplete`
   * is told the batch's answer when its last request is answered later (see `take`).
   */
  open(entries: unknown[], onComplete?: (replies: unknown[]) => void): OpenedBatch {
    const batch: Batch = { replies: [], waiting: 0, onComplete };
    const dispatch: Array<Record<string, unknown>> = [];
    const warnings: string[] = [];
    for (const entry of entries) {
      const intake = inspectJsonRpcValue(entry, this.limits);
      if (!('accept' in intake)) {
        warnings.push(intake.warning);
        for (const reply of [intake.reply ?? []].flat()) batch.replies.push(reply);
        continue;
      }
      const message = intake.accept;
      const isRequest = typeof message.method === 'string' && 'id' in message;
      if (!isRequest) {
        dispatch.push(message); // A notification, or a response to one of our requests.
        continue;
      }
      const key = idKey(message.id);
      if (this.#byId.has(key) || key === 'null') {
        batch.replies.push(duplicate(message.id));
        warnings.push('refused a batch entry whose id is null or already awaits its answer');
        continue;
      }
      this.#byId.set(key, { batch, slot: batch.replies.length });
      batch.replies.push(undefined);
      batch.waiting++;
      dispatch.push(message);
    }
    const complete = batch.waiting === 0 && batch.replies.length > 0 ? batch.replies : undefined;
    return { dispatch, complete, waiting: batch.waiting, warnings };
  }

  /**
   * An outgoing message: `held` when it answers a request of an open batch (then `complete` is
   * the batch's answer once this was the last one missing).
   */
  take(message: unknown): { held: false } | { held: true; complete?: unknown[] } {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    if (method !== undefined || id === undefined) return { held: false };
    const key = idKey(id);
    const open = this.#byId.get(key);
    if (!open) return { held: false };
    this.#byId.delete(key);
    open.batch.replies[open.slot] = message;
    open.batch.waiting--;
    if (open.batch.waiting > 0) return { held: true };
    open.batch.onComplete?.(open.batch.replies);
    return { held: true, complete: open.batch.replies };
  }
}

function idKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : String(id);
}

function duplicate(id: unknown): JsonRpcErrorResponse {
  const usable = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  return errorResponse(usable, INVALID_REQUEST, 'Invalid Request: in a batch every request needs an id of its own (not null, not one still awaiting its answer)');
}

/**
 * The entries of `text` when it is a non-empty JSON array within the limits (its size and depth
 * count as one message's); undefined otherwise, and `inspectJsonRpcText` then answers it as it
 * answers any message (an empty batch is one -32600, a too deep one is refused unparsed).
 */
export function parseBatch(text: string, limits: JsonRpcLimits): unknown[] | undefined {
  if (!text.trimStart().startsWith('[')) return undefined;
  if (Buffer.byteLength(text) > limits.maxMessageBytes || textNestsDeeperThan(text, limits.maxDepth)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
