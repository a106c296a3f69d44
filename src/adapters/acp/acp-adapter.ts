import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { AgentAdapter } from '../agent-adapter.js';
import { serveAcp, type ServeAcpOptions } from './serve-acp.js';

export interface AcpAdapterOptions extends ServeAcpOptions {
  /** Defaults to the process's stdin/stdout. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

export interface AcpStdioServer {
  /** Resolves when the client disconnects (stdin closed). */
  closed: Promise<void>;
  close(): void;
}

/** ACP over stdio: newline-delimited JSON-RPC; stdout carries protocol bytes only. */
export const acpAdapter: AgentAdapter<AcpAdapterOptions, AcpStdioServer> = {
  name: 'acp',
  wrap(agent, options = {}) {
    const input = Readable.toWeb((options.input ?? process.stdin) as Readable) as ReadableStream<Uint8Array>;
    const output = Writable.toWeb((options.output ?? process.stdout) as Writable) as WritableStream<Uint8Array>;
    const connection = serveAcp(agent, acp.ndJsonStream(output, input), options);
    return { closed: connection.closed, close: () => connection.close() };
  },
};
