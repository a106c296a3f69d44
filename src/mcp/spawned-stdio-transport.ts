import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpClientError } from './mcp-client-error.js';
import { commandLineTooLong } from './command-line-limits.js';

/** What a started stdio server reports to its transport. */
export interface StdioServerHandlers {
  onStdout(chunk: Uint8Array): void;
  onStderr(chunk: Uint8Array): void;
  /** Once: the program ended, or could not start (`error` says why). */
  onExit(exit: { code: number | null; signal: string | null; error?: string }): void;
}

/** A stdio server's program, started by someone else. */
export interface StdioServerProcess {
  write(chunk: Uint8Array): void;
  /** Stops the program and everything it started. */
  kill(): void;
}

/** A stdio server's program as the config names it; `env` holds only the config's own variables. */
export interface StdioServerCommand {
  /** The server's config id (for errors). */
  serverId: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * Starts a stdio server's program somewhere other than this process (the whole-agent
 * launcher runs it in a sandbox of its own). The spawner gives it the allow-listed tool
 * environment of the place it runs (tools/secret-env.ts) plus `command.env`.
 */
export type SpawnStdioServer = (command: StdioServerCommand, handlers: StdioServerHandlers) => StdioServerProcess;

/**
 * The MCP SDK's client `Transport` over a program that a `SpawnStdioServer` started: newline-
 * delimited JSON-RPC on its stdin and stdout, as the SDK's `StdioClientTransport`, whose
 * process is this one's own child. Single-use, like every SDK transport.
 */
export class SpawnedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly readBuffer = new ReadBuffer();
  private program: StdioServerProcess | undefined;
  private closed = false;

  constructor(
    private readonly spawnServer: SpawnStdioServer,
    private readonly command: StdioServerCommand,
    private readonly onStderr?: (chunk: Uint8Array) => void,
  ) {}

  async start(): Promise<void> {
    if (this.program || this.closed) throw new Error('SpawnedStdioTransport already started; a transport is single-use');
    this.program = this.spawnServer(this.command, {
      onStdout: (chunk) => this.read(chunk),
      onStderr: (chunk) => this.onStderr?.(chunk),
      onExit: (exit) => {
        if (exit.error) {
          const tooLong = /\bE2BIG\b/.test(exit.error);
          const message = tooLong ? commandLineTooLong(this.command.serverId) : `the MCP server "${this.command.serverId}" could not run (${this.command.command}): ${exit.error}`;
          this.onerror?.(new McpClientError({ code: 'connect_failed', serverId: this.command.serverId, message, permanent: tooLong }));
        }
        this.finish();
      },
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.program || this.closed) throw new Error('not connected: the MCP server has ended');
    this.program.write(Buffer.from(serializeMessage(message), 'utf8'));
  }

  async close(): Promise<void> {
    this.program?.kill();
    this.finish();
  }

  private read(chunk: Uint8Array): void {
    try {
      this.readBuffer.append(Buffer.from(chunk));
    } catch (error) {
      // A line over the SDK's buffer bound: dropped, reported; the server may go on.
      this.readBuffer.clear();
      this.onerror?.(error as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.readBuffer.clear();
    this.onclose?.();
  }
}
