import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { BoundedLineReader, type LineEvent } from '../json-rpc/bounded-line-reader.js';
import { errorResponse, INVALID_REQUEST, inspectJsonRpcText, oversizedIntake, type Intake, type Refusal } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { explainMcpInternalError } from './explain-mcp-internal-error.js';
import { invalidParamsFromSchema } from './invalid-params-from-schema.js';

/**
 * MCP over stdio with bounded framing, in place of the SDK's `StdioServerTransport`, whose
 * read buffer closes the connection on a line over 10 MB (after which nothing is answered).
 * A line over `maxMessageBytes` is skipped as it streams in and answered with an error,
 * too-deep or malformed messages are answered without reaching the server, and the
 * transport keeps reading.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #lines: BoundedLineReader;
  #started = false;
  #closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: { limits: JsonRpcLimits; warn?: (message: string) => void },
  ) {
    this.#lines = new BoundedLineReader(options.limits.maxMessageBytes);
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioServerTransport already started');
    this.#started = true;
    this.input.on('data', this.#onData);
    this.input.on('error', this.#onError);
    this.input.on('end', this.#onEnd);
    this.input.on('close', this.#onEnd);
    this.output.on('error', this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('the stdio transport is closed');
    await this.#write(explainMcpInternalError(invalidParamsFromSchema(message), this.options.warn));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off('data', this.#onData);
    this.input.off('error', this.#onError);
    this.input.off('end', this.#onEnd);
    this.input.off('close', this.#onEnd);
    this.output.off('error', this.#onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer | string) => {
    for (const event of this.#lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) this.#handle(event);
  };

  readonly #onEnd = () => {
    this.#handle(this.#lines.flush());
    void this.close();
  };

  readonly #onError = (error: Error) => this.onerror?.(error);

  #handle(event: LineEvent | undefined): void {
    if (!event || this.#closed) return;
    let intake: Intake;
    if ('oversized' in event) intake = oversizedIntake(event.oversized.head, event.oversized.bytes, this.options.limits);
    else {
      const text = event.line.trim();
      if (!text) return;
      intake = inspectJsonRpcText(text, this.options.limits);
    }
    if ('reply' in intake) return this.#refuse(intake);
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(intake.accept);
    } catch {
      // JSON-RPC-shaped but not MCP-shaped (a response without result or error, …).
      const id = intake.accept.id;
      return this.#refuse({
        reply: errorResponse(typeof id === 'string' || typeof id === 'number' ? id : null, INVALID_REQUEST, 'Invalid Request: not a valid MCP message'),
        warning: 'refused a message that is not a valid MCP message',
      });
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #refuse(intake: Refusal): void {
    this.options.warn?.(`mcp: ${intake.warning}`);
    if (intake.reply) void this.#write(intake.reply).catch((error: unknown) => this.onerror?.(error as Error));
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : undefined))) resolve();
      else this.output.once('drain', () => resolve());
    });
  }
}
