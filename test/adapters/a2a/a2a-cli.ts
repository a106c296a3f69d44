import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';
import { startHttpCli } from '../mcp-server/mcp-http-cli.js';

/** The tests' shared bearer token, so the ACP helpers of the same process authenticate too. */
export const TOKEN = TEST_AUTH_TOKEN;
const URL_LINE = /A2A at (http:\/\/\S+)\/a2a /;

export interface A2aCli {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  rpcUrl: string;
  stderr(): string;
  /** The official SDK client, with the bearer token (or `token`). */
  client(token?: string): Promise<Client>;
  close(): Promise<void>;
}

/** A temp project with a `.plaited` folder, an optional config and one skill. */
export function a2aProject(config?: object): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-a2a-'));
  mkdirSync(join(cwd, '.plaited/skills/release-notes'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/skills/release-notes/SKILL.md'), '---\nname: release-notes\ndescription: Writes release notes from the git log\n---\nRead the log, group by kind.\n');
  if (config) writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(config));
  return cwd;
}

/** Starts the built CLI with `--adapter a2a --port 0` (plus `args`) and waits for the URL it logs. */
export async function startA2aCli(options: { cwd: string; args: string[]; env?: Record<string, string> }): Promise<A2aCli> {
  // The A2A face takes --port itself (no --transport flag); the HTTP faces' launcher does the rest.
  const http = await startHttpCli({ ...options, urlPattern: URL_LINE, transportFlag: false });
  return {
    child: http.child,
    origin: http.url,
    rpcUrl: `${http.url}/a2a`,
    stderr: http.stderr,
    client: (token = TOKEN) => connectA2a(http.url, token),
    close: http.close,
  };
}

export async function connectA2a(origin: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${token}`);
    return fetch(request);
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(origin);
}

export function userMessage(text: string | Part[], ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  const message: Message = {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof text === 'string' ? [textOf(text)] : text,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

export function textOf(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

export function isTask(result: unknown): result is Task {
  return typeof result === 'object' && result !== null && 'status' in result && 'id' in result;
}

/** Sends a message and returns the task it made or continued; any other answer fails the test. */
export async function sendTask(client: Client, text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Task> {
  const result = await client.sendMessage(userMessage(text, ids));
  if (!isTask(result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The text parts of a message. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The task state of a stream event, when it carries one. */
export function eventState(event: StreamResponse): TaskState | undefined {
  const payload = event.payload;
  if (payload?.$case === 'task') return payload.value.status?.state;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  return undefined;
}
