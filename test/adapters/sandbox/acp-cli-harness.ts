import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

/**
 * The real CLI (`dist/bin/plaited-agent.js`) as a subprocess over real stdio,
 * driven by the ACP SDK's client. Records every `session/update` and answers
 * permission requests with "allow", so a scripted model's tool calls run.
 */

export const CLI = fileURLToPath(new URL('../../../dist/bin/plaited-agent.js', import.meta.url));

export interface SessionUpdateRecord {
  sessionId: string;
  update: { sessionUpdate: string; toolCallId?: string; status?: string; content?: unknown; [key: string]: unknown };
}

export interface CliSession {
  child: ChildProcess;
  connection: acp.ClientConnection;
  updates: SessionUpdateRecord[];
  stderr(): string;
  /** Resolves with the exit code when the CLI exits. */
  exited: Promise<number | null>;
  close(): Promise<void>;
}

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`the e2e sandbox tests need the built CLI at ${CLI}: run \`npm run build\` first`);
}

export function writeConfig(project: string, config: unknown): void {
  mkdirSync(join(project, '.plaited'), { recursive: true });
  writeFileSync(join(project, '.plaited', 'config.json'), JSON.stringify(config, null, 2));
}

export function startCli(options: { args: string[]; cwd: string; env?: NodeJS.ProcessEnv }): CliSession {
  const child = spawn(process.execPath, [CLI, ...options.args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const updates: SessionUpdateRecord[] = [];
  const app = acp
    .client({ name: 'plaited-sandbox-e2e' })
    .onNotification('session/update', (context) => {
      updates.push(context.params as unknown as SessionUpdateRecord);
    })
    .onRequest('session/request_permission', (context) => {
      const options = context.params.options;
      const allow = options.find((option) => option.kind === 'allow_once') ?? options.find((option) => option.kind.startsWith('allow')) ?? options[0];
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return {
    child,
    connection,
    updates,
    stderr: () => stderr,
    exited,
    async close() {
      connection.close();
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The text of a tool call's final update (content blocks and raw output). */
export function toolCallText(update: SessionUpdateRecord['update']): string {
  return JSON.stringify(update.content ?? '') + JSON.stringify(update.rawOutput ?? '');
}
