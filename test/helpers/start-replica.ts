import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptStep, type ScriptedOpenAIServer } from './scripted-openai-server.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
/** What the instant model answers to a prompt naming `turn <id>`. */
export const replyTo = (id: string): string => `answer to ${id}`;
/** The words a held reply streams after its answer, one a `HELD_CHUNK_MS`: long enough to kill the replica mid-reply. */
export const HELD_FILLER = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
const HELD_CHUNK_MS = 25;

/** One replica: the real CLI serving ACP over HTTP on a shared PostgreSQL store, with its own instant model. */
export interface Replica {
  readonly index: number;
  /** `http://127.0.0.1:PORT/acp`, the same across restarts. */
  readonly url: string;
  /** False from the moment it is told to stop (or killed) until it listens again. */
  readonly up: boolean;
  /** Counts its stops, kills and starts: what began in another life than this one saw that life's end. */
  readonly life: number;
  /** The model it talks to (kept across restarts). */
  readonly model: ScriptedOpenAIServer;
  /** The next turn it serves streams slowly (its answer, then `HELD_FILLER`); resolves with that turn's id once asked. */
  holdNextTurn(): Promise<string>;
  /** SIGTERM: the plain, graceful stop. */
  stop(): Promise<void>;
  /** SIGKILL of the agent process (the launcher's child: the CLI re-runs itself without its secrets), as a crash. */
  kill(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
}

/** The turn id a chat request is about: `turn <id>` in its last user message. */
export function turnIdOf(request: RecordedRequest): string | undefined {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return /turn (s\d+-t\d+-a\d+)/.exec(text)?.[1];
}

export async function startReplica(index: number, store: string): Promise<Replica> {
  let hold: ((id: string) => void) | undefined;
  const model = await startScriptedOpenAIServer((request): ScriptStep => {
    const id = turnIdOf(request) ?? 'unknown';
    if (!hold) return { text: replyTo(id) };
    hold(id);
    hold = undefined;
    return { text: `${replyTo(id)} ${HELD_FILLER}`, chunkDelayMs: HELD_CHUNK_MS };
  });
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-replica-'));
  mkdirSync(join(cwd, '.plaited'));
  const launch = (port?: number) =>
    startHttpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store], urlPattern: URL_LINE, ...(port ? { port } : {}) });
  let cli: HttpCli = await launch();
  const url = cli.url;
  const port = Number(new URL(url).port);
  let up = true;
  let life = 0;
  return {
    index,
    url,
    model,
    get up() {
      return up;
    },
    get life() {
      return life;
    },
    holdNextTurn: () => new Promise<string>((held) => (hold = held)),
    async stop() {
      up = false;
      life++;
      await cli.close();
    },
    async kill() {
      up = false;
      life++;
      const agentPid = Number(spawnSync('pgrep', ['-P', String(cli.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
      if (!(agentPid > 0)) throw new Error(`replica ${index}: no agent process under the launcher ${cli.child.pid}`);
      process.kill(agentPid, 'SIGKILL');
      await cli.close();
    },
    async start() {
      cli = await launch(port);
      if (cli.url !== url) throw new Error(`replica ${index} came back at ${cli.url}, not ${url}`);
      up = true;
      life++;
    },
  };
}

/** Stops every replica still running and its model. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  for (const replica of replicas) {
    if (replica.up) await replica.stop();
    await replica.model.close();
  }
}
