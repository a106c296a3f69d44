import type * as acp from '@agentclientprotocol/sdk';
import { BoundedLineReader, type LineEvent } from '../json-rpc/bounded-line-reader.js';
import { inspectJsonRpcText, oversizedIntake, type Intake } from '../json-rpc/inspect-json-rpc.js';
import { JsonRpcBatches, parseBatch } from '../json-rpc/json-rpc-batches.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { asksForAcpV2 } from './asks-for-acp-v2.js';

export interface BoundedStreamOptions {
  limits: JsonRpcLimits;
  /** Told about every refused message (stderr in the CLI). */
  warn?: (message: string) => void;
}

/**
 * ACP over newline-delimited JSON (stdio), like the SDK's `ndJsonStream` but no single line
 * can end the connection: a line over `maxMessageBytes` is skipped as it streams in, one
 * nested deeper than `maxDepth` is never parsed, and every malformed message with an id gets
 * a JSON-RPC error, then reading goes on. A connection that opens with a v2 `initialize` gets
 * JSON-RPC batches answered (one array of answers); v1 refuses each request of one.
 */
export function boundedNdJsonStream(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>, options: BoundedStreamOptions): acp.Stream {
  const encoder = new TextEncoder();
  const writer = output.getWriter();
  let writes: Promise<void> = Promise.resolve();
  const write = (message: unknown): Promise<void> => {
    const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
    const next = writes.then(() => writer.write(bytes));
    writes = next.catch(() => undefined);
    return next;
  };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Set when the first message is a v2 `initialize`: the draft answers batches. */
  let batches: JsonRpcBatches | undefined;
  let first = true;

  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      const lines = new BoundedLineReader(options.limits.maxMessageBytes);
      const handle = async (event: LineEvent | undefined) => {
        if (!event) return;
        let intake: Intake;
        if ('oversized' in event) intake = oversizedIntake(event.oversized.head, event.oversized.bytes, options.limits);
        else {
          const text = event.line.trim();
          if (!text) return;
          const entries = batches && parseBatch(text, options.limits);
          if (entries) {
            const opened = batches!.open(entries);
            for (const warning of opened.warnings) options.warn?.(`acp: ${warning}`);
            if (opened.complete) await write(opened.complete).catch(() => undefined);
            for (const message of opened.dispatch) controller.enqueue(message as acp.AnyMessage);
            return;
          }
          intake = inspectJsonRpcText(text, options.limits);
        }
        if ('accept' in intake) {
          if (first && asksForAcpV2(intake.accept)) batches = new JsonRpcBatches(options.limits);
          first = false;
          return controller.enqueue(intake.accept as acp.AnyMessage);
        }
        options.warn?.(`acp: ${intake.warning}`);
        if (intake.reply) await write(intake.reply).catch(() => undefined);
      };
      reader = input.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const event of lines.push(value)) await handle(event);
        }
        await handle(lines.flush());
        controller.close();
      } catch (error) {
        controller.error(error);
      } finally {
        reader.releaseLock();
      }
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => {
      const taken = batches?.take(message);
      if (!taken?.held) return write(message);
      return taken.complete ? write(taken.complete) : Promise.resolve();
    },
    close: () => writes.then(() => writer.close()).catch(() => undefined),
  });
  return { readable, writable };
}
