import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI } from './acp-cli.js';
import { onLines } from './stdout-lines.js';
import { trustProjectConfig } from './trust-config.js';

export type RawMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/**
 * The built CLI driven with raw bytes over stdio, for hostile input: every stdout line is
 * recorded (a line that is not JSON-RPC is a violation: stdout belongs to the protocol),
 * and responses are matched to ids by the test.
 */
export interface RawJsonRpcCli {
  child: ChildProcessWithoutNullStreams;
  /** Every message the CLI wrote, in order (a batch answer is one array entry). */
  messages: Array<RawMessage | RawMessage[]>;
  /** stdout lines that were not JSON-RPC messages or batches of them. */
  violations: string[];
  stderr(): string;
  write(text: string): Promise<void>;
  /** Sends one request and resolves with its response. */
  request(method: string, params?: unknown, id?: string | number): Promise<RawMessage>;
  /** Resolves with the response carrying `id` (already received or still to come). */
  response(id: unknown, timeoutMs?: number): Promise<RawMessage>;
  /** Resolves with the exit code, or `'alive'` when still running after `ms`. */
  exitedWithin(ms: number): Promise<number | null | 'alive'>;
  close(): Promise<number | null>;
}

let nextId = 1;

export function startRawCli(options: { cwd: string; args: string[]; env?: Record<string, string> }): RawJsonRpcCli {
  trustProjectConfig(options.cwd, options.args, options.env);
  const child = spawn(process.execPath, [CLI, ...options.args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const messages: Array<RawMessage | RawMessage[]> = [];
  const violations: string[] = [];
  const waiters: Array<() => void> = [];
  onLines(child.stdout, (line) => {
    try {
      const parsed = JSON.parse(line) as RawMessage | RawMessage[];
      const all = Array.isArray(parsed) ? parsed : [parsed];
      if (all.length === 0 || all.some((message) => message?.jsonrpc !== '2.0')) violations.push(line.slice(0, 300));
      messages.push(parsed);
    } catch {
      violations.push(line.slice(0, 300));
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const find = (id: unknown): RawMessage | undefined => {
    for (const entry of messages) {
      for (const message of Array.isArray(entry) ? entry : [entry]) {
        if (message.method === undefined && Object.is(message.id, id)) return message;
      }
    }
    return undefined;
  };
  const cli: RawJsonRpcCli = {
    child,
    messages,
    violations,
    stderr: () => stderr,
    write: (text) =>
      new Promise((done, fail) => {
        if (child.stdin.destroyed) return fail(new Error(`the CLI's stdin is closed; stderr:\n${stderr}`));
        child.stdin.write(text, (error) => (error ? fail(error) : done()));
      }),
    async request(method, params, id = `r${nextId++}`) {
      await cli.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return cli.response(id);
    },
    response(id, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response to id ${JSON.stringify(id)} within ${timeoutMs} ms; stderr:\n${stderr.slice(-2000)}`)), timeoutMs);
        const check = () => {
          const found = find(id);
          if (found) {
            clearTimeout(timer);
            return resolve(found);
          }
          if (child.exitCode !== null) {
            clearTimeout(timer);
            return reject(new Error(`the CLI exited (${child.exitCode}) before answering ${JSON.stringify(id)}; stderr:\n${stderr.slice(-2000)}`));
          }
          waiters.push(check);
        };
        check();
        void exited.then(() => waiters.splice(0).forEach((wake) => wake()));
      });
    },
    exitedWithin: (ms) => Promise.race([exited, new Promise<'alive'>((done) => setTimeout(() => done('alive'), ms))]),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  return cli;
}
