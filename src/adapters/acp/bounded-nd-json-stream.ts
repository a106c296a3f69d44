import type * as acp from '@agentclientprotocol/sdk';
import { BoundedLineReader, type LineEvent } from '../json-rpc/bounded-line-reader.js';
import { inspectJsonRpcText, oversizedIntake, type Intake } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';

export interface BoundedStreamOptions {
  limits: JsonRpcLimits;
  /** Told about every refused message (stderr in the CLI). */
  warn?: (message: string) => void;
}

/**
 * ACP over newline-delimited JSON (stdio), like the SDK's `ndJsonStream` but no single line
 * can end the connection: a line over `maxMessageBytes` is skipped as it streams in, one
 * nested deeper than `maxDepth` is never parsed, and every malformed message with an id gets
 * a JSON-RPC error, then reading goes on.
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
          intake = inspectJsonRpcText(text, options.limits);
        }
        if ('accept' in intake) return controller.enqueue(intake.accept as acp.AnyMessage);
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
    write: (message) => write(message),
    close: () => writes.then(() => writer.close()).catch(() => undefined),
  });
  return { readable, writable };
}
