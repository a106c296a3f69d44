import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { runtimeExecutable, type RuntimeName } from './runtimes.js';
import { onLines } from './stdout-lines.js';
import { trustProjectConfig } from './trust-config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(root, 'dist/bin/plaited-agent.js');

// The package's exports hide package.json, so locate the schemas from the project's node_modules.
const schemaPath = (version: 1 | 2, unstable = false) =>
  join(root, `node_modules/@agentclientprotocol/sdk/schema/v${version}/schema${unstable ? '.unstable' : ''}.json`);

type Direction = 'agent' | 'client';
type Json = { jsonrpc?: string; id?: string | number | null; method?: string; params?: unknown; result?: unknown; error?: unknown };

const REQUESTS: Record<string, { params: string; result: string; from: Direction }> = {
  initialize: { params: 'InitializeRequest', result: 'InitializeResponse', from: 'client' },
  'session/new': { params: 'NewSessionRequest', result: 'NewSessionResponse', from: 'client' },
  'session/load': { params: 'LoadSessionRequest', result: 'LoadSessionResponse', from: 'client' },
  'session/list': { params: 'ListSessionsRequest', result: 'ListSessionsResponse', from: 'client' },
  'session/set_mode': { params: 'SetSessionModeRequest', result: 'SetSessionModeResponse', from: 'client' },
  'session/resume': { params: 'ResumeSessionRequest', result: 'ResumeSessionResponse', from: 'client' },
  'session/close': { params: 'CloseSessionRequest', result: 'CloseSessionResponse', from: 'client' },
  'session/delete': { params: 'DeleteSessionRequest', result: 'DeleteSessionResponse', from: 'client' },
  'session/set_config_option': { params: 'SetSessionConfigOptionRequest', result: 'SetSessionConfigOptionResponse', from: 'client' },
  authenticate: { params: 'AuthenticateRequest', result: 'AuthenticateResponse', from: 'client' },
  logout: { params: 'LogoutRequest', result: 'LogoutResponse', from: 'client' },
  'elicitation/create': { params: 'CreateElicitationRequest', result: 'CreateElicitationResponse', from: 'agent' },
  'session/prompt': { params: 'PromptRequest', result: 'PromptResponse', from: 'client' },
  'session/request_permission': { params: 'RequestPermissionRequest', result: 'RequestPermissionResponse', from: 'agent' },
  'fs/read_text_file': { params: 'ReadTextFileRequest', result: 'ReadTextFileResponse', from: 'agent' },
  'fs/write_text_file': { params: 'WriteTextFileRequest', result: 'WriteTextFileResponse', from: 'agent' },
  'terminal/create': { params: 'CreateTerminalRequest', result: 'CreateTerminalResponse', from: 'agent' },
  'terminal/output': { params: 'TerminalOutputRequest', result: 'TerminalOutputResponse', from: 'agent' },
  'terminal/release': { params: 'ReleaseTerminalRequest', result: 'ReleaseTerminalResponse', from: 'agent' },
  'terminal/wait_for_exit': { params: 'WaitForTerminalExitRequest', result: 'WaitForTerminalExitResponse', from: 'agent' },
  'terminal/kill': { params: 'KillTerminalRequest', result: 'KillTerminalResponse', from: 'agent' },
};
/** Unstable methods this agent serves (in `schema.unstable.json` of v1 and of the v2 draft alike). */
const UNSTABLE_REQUESTS: Record<string, { params: string; result: string; from: Direction }> = {
  'session/fork': { params: 'ForkSessionRequest', result: 'ForkSessionResponse', from: 'client' },
  'providers/list': { params: 'ListProvidersRequest', result: 'ListProvidersResponse', from: 'client' },
  'providers/set': { params: 'SetProviderRequest', result: 'SetProviderResponse', from: 'client' },
  'providers/disable': { params: 'DisableProviderRequest', result: 'DisableProviderResponse', from: 'client' },
};
const NOTIFICATIONS: Record<string, { params: string; from: Direction }> = {
  'session/update': { params: 'SessionNotification', from: 'agent' },
  'session/cancel': { params: 'CancelNotification', from: 'client' },
};

/** The v2 draft's methods and their schema types (`schema/v2/schema.json`). */
const V2_REQUESTS: Record<string, { params: string; result: string; from: Direction }> = {
  initialize: { params: 'InitializeRequest', result: 'InitializeResponse', from: 'client' },
  'auth/login': { params: 'LoginAuthRequest', result: 'LoginAuthResponse', from: 'client' },
  'auth/logout': { params: 'LogoutAuthRequest', result: 'LogoutAuthResponse', from: 'client' },
  'session/new': { params: 'NewSessionRequest', result: 'NewSessionResponse', from: 'client' },
  'session/list': { params: 'ListSessionsRequest', result: 'ListSessionsResponse', from: 'client' },
  'session/resume': { params: 'ResumeSessionRequest', result: 'ResumeSessionResponse', from: 'client' },
  'session/close': { params: 'CloseSessionRequest', result: 'CloseSessionResponse', from: 'client' },
  'session/delete': { params: 'DeleteSessionRequest', result: 'DeleteSessionResponse', from: 'client' },
  'session/set_config_option': { params: 'SetSessionConfigOptionRequest', result: 'SetSessionConfigOptionResponse', from: 'client' },
  'session/prompt': { params: 'PromptRequest', result: 'PromptResponse', from: 'client' },
  'tool_call/cancel': { params: 'CancelToolCallRequest', result: 'CancelToolCallResponse', from: 'client' },
  'terminal/cancel': { params: 'CancelTerminalRequest', result: 'CancelTerminalResponse', from: 'client' },
  'session/request_permission': { params: 'RequestPermissionRequest', result: 'RequestPermissionResponse', from: 'agent' },
  'elicitation/create': { params: 'CreateElicitationRequest', result: 'CreateElicitationResponse', from: 'agent' },
};
const V2_NOTIFICATIONS: Record<string, { params: string; from: Direction }> = {
  'session/update': { params: 'UpdateSessionNotification', from: 'agent' },
  'session/cancel': { params: 'CancelSessionNotification', from: 'client' },
};

/**
 * One Ajv per schema file in a test process, its compiled validators shared by every validator
 * on that schema: compiling the schema's message unions costs a few hundred ms of CPU, which a
 * file starting a dozen CLIs paid once per CLI. A compiled validator keeps no state between calls
 * (its `errors` are read right after each call), so sharing it changes nothing that is checked.
 */
const compiledSchemas = new Map<string, { ajv: Ajv2020; validators: Map<string, ValidateFunction> }>();

function compiledSchema(version: 1 | 2, unstable: boolean): { ajv: Ajv2020; validators: Map<string, ValidateFunction> } {
  const key = `${version}:${unstable}`;
  let compiled = compiledSchemas.get(key);
  if (!compiled) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(JSON.parse(readFileSync(schemaPath(version, unstable), 'utf8')), 'acp');
    compiled = { ajv, validators: new Map() };
    compiledSchemas.set(key, compiled);
  }
  return compiled;
}

/**
 * Validates every JSON-RPC message against the ACP v1 JSON schema shipped in the SDK:
 * the envelope against the schema's Agent/Client message types, and params and results
 * against the exact type of their method (responses are matched to their request's method).
 */
export class AcpSchemaValidator {
  readonly errors: string[] = [];
  readonly messages: Array<{ direction: Direction; message: Json }> = [];
  readonly #ajv: Ajv2020;
  readonly #validators: Map<string, ValidateFunction>;
  readonly #pending = new Map<string, string>();
  readonly #requests: typeof REQUESTS;
  readonly #notifications: typeof NOTIFICATIONS;

  /** Against `schema/v1/schema.json` (stable), or the v2 draft's `schema/v2/schema.json`; `unstable`: their `schema.unstable.json`, with `session/fork`. */
  constructor(version: 1 | 2 = 1, unstable = false) {
    const compiled = compiledSchema(version, unstable);
    this.#ajv = compiled.ajv;
    this.#validators = compiled.validators;
    this.#requests = unstable ? { ...(version === 2 ? V2_REQUESTS : REQUESTS), ...UNSTABLE_REQUESTS } : version === 2 ? V2_REQUESTS : REQUESTS;
    this.#notifications = version === 1 ? NOTIFICATIONS : V2_NOTIFICATIONS;
  }

  check(direction: Direction, message: Json): void {
    this.messages.push({ direction, message });
    const where = `${direction} message ${JSON.stringify(message).slice(0, 300)}`;
    if (message.jsonrpc !== '2.0') this.errors.push(`${where}: jsonrpc must be "2.0"`);
    const envelope = this.#validator(direction === 'agent' ? '#/anyOf/0' : '#/anyOf/1');
    if (!envelope(message)) this.errors.push(`${where}: not a valid ${direction} message: ${this.#ajv.errorsText(envelope.errors)}`);
    if (message.method !== undefined) {
      const request = this.#requests[message.method];
      const notification = this.#notifications[message.method];
      const spec = message.id !== undefined ? request : notification;
      if (!spec) return; // Unknown methods are allowed to be sent (the peer must answer method-not-found).
      if (spec.from !== direction) this.errors.push(`${where}: ${message.method} must be sent by the ${spec.from}`);
      this.#validate(spec.params, message.params, where);
      if (message.id !== undefined && request) this.#pending.set(`${direction}:${String(message.id)}`, message.method);
      return;
    }
    const other = direction === 'agent' ? 'client' : 'agent';
    const method = this.#pending.get(`${other}:${String(message.id)}`);
    if (method) this.#pending.delete(`${other}:${String(message.id)}`);
    if (message.error !== undefined) {
      const error = message.error as { code?: unknown; message?: unknown };
      if (!Number.isInteger(error.code) || typeof error.message !== 'string') this.errors.push(`${where}: malformed error object`);
      return;
    }
    if (method) this.#validate(this.#requests[method]!.result, message.result ?? {}, where);
  }

  #validate(def: string, value: unknown, where: string): void {
    const validate = this.#validator(`#/$defs/${def}`);
    if (!validate(value)) this.errors.push(`${where}: ${def} invalid: ${this.#ajv.errorsText(validate.errors)}`);
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#validators.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `acp${pointer}` });
      this.#validators.set(pointer, validate);
    }
    return validate;
  }
}

export interface AcpCli {
  child: ChildProcessWithoutNullStreams;
  connection: acp.ClientConnection;
  agent: acp.ClientContext;
  validator: AcpSchemaValidator;
  stderr(): string;
  /** Updates received, per session. */
  updates: acp.SessionNotification[];
  /** Writes raw bytes to the agent's stdin (malformed input tests). */
  writeRaw(line: string): void;
  /** Raw lines the agent wrote that were not JSON-RPC for the client (should stay empty). */
  rawResponses: Json[];
  /** Resolves with the exit code when the CLI exits. */
  exited: Promise<number | null>;
  /** Closes stdin (SIGKILL after 5 s) and resolves with the exit code. */
  close(): Promise<number | null>;
}

export interface StartCliOptions {
  cwd: string;
  args?: string[];
  env?: Record<string, string>;
  /** Answers permission requests; default allow once. */
  onPermission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  /** Extra client handlers (fs, terminal) and capabilities to advertise. */
  configureClient?: (client: acp.ClientApp) => void;
  /** The runtime that runs the CLI (default: this Node). */
  runtime?: RuntimeName;
  /** Trust the project's config first with `plaited-agent trust`, as its user would (default true). */
  trust?: boolean;
  /** Validate against the unstable v1 schema (a client of `@agentclientprotocol/sdk/unstable` methods such as `session/fork`). */
  unstable?: boolean;
  /** The CLI script to run (default: this repository's built one; an installed package's bin). */
  cli?: string;
}

/**
 * Spawns the built CLI and connects the ACP SDK's client side to its stdio, teeing
 * both directions through the schema validator.
 */
export function startAcpCli(options: StartCliOptions): AcpCli {
  if (options.trust !== false) trustProjectConfig(options.cwd, options.args, options.env);
  const child = spawn(runtimeExecutable(options.runtime), [options.cli ?? CLI, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Listened for from the start: a child killed by a signal has no exitCode to check later.
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const validator = new AcpSchemaValidator(1, options.unstable ?? false);
  const updates: acp.SessionNotification[] = [];
  const rawResponses: Json[] = [];

  // agent stdout → validator → client
  let pushToClient!: (message: acp.AnyMessage) => void;
  let closeClient!: () => void;
  const readable = new ReadableStream<acp.AnyMessage>({
    start(controller) {
      let closed = false;
      // A last line can arrive after the stream closed (a killed agent's stdout ends while a chunk is
      // still being split): nothing reads it any more, so it is not pushed into a closed stream.
      pushToClient = (message) => {
        if (closed) return;
        try {
          controller.enqueue(message);
        } catch {
          // The client side cancelled the stream.
          closed = true;
        }
      };
      closeClient = () => {
        if (closed) return;
        closed = true;
        try {
          controller.close();
        } catch {
          // already closed (the client side cancelled it)
        }
      };
    },
  });
  onLines(child.stdout, (line) => {
    let message: Json;
    try {
      message = JSON.parse(line) as Json;
    } catch {
      validator.errors.push(`agent wrote a non-JSON line to stdout: ${line.slice(0, 200)}`);
      return;
    }
    validator.check('agent', message);
    // Answers to raw test lines carry ids the SDK client never used; keep them for the test.
    if (message.method === undefined && typeof message.id === 'string' && message.id.startsWith('raw-')) {
      rawResponses.push(message);
      return;
    }
    if (message.method === undefined && message.id === null) {
      rawResponses.push(message);
      return;
    }
    pushToClient(message as acp.AnyMessage);
  });
  child.stdout.on('end', () => closeClient());

  // client → validator → agent stdin
  const writable = new WritableStream<acp.AnyMessage>({
    write(message) {
      validator.check('client', message as Json);
      if (!child.stdin.destroyed) child.stdin.write(`${JSON.stringify(message)}\n`);
    },
  });

  const app = acp.client({ name: 'plaited-test-client' });
  app.onRequest('session/request_permission', async ({ params }) =>
    options.onPermission ? options.onPermission(params) : { outcome: { outcome: 'selected', optionId: params.options[0]!.optionId } },
  );
  app.onNotification('session/update', ({ params }) => {
    updates.push(params);
  });
  options.configureClient?.(app);
  const connection = app.connect({ readable, writable });

  return {
    child,
    connection,
    agent: connection.agent,
    validator,
    updates,
    rawResponses,
    stderr: () => stderr,
    writeRaw: (line) => child.stdin.write(line),
    exited,
    async close() {
      connection.close();
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export const CLIENT_INFO = { name: 'plaited-test-client', version: '1.0.0' };

export async function initialize(cli: Pick<AcpCli, 'agent'>, capabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
  return cli.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: capabilities, clientInfo: CLIENT_INFO });
}

/** Text of the agent message chunks received for a session since `from`. */
export function agentText(cli: Pick<AcpCli, 'updates'>, sessionId: string, from = 0): string {
  return cli.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => {
      const update = n.update as { content: { type: string; text?: string } };
      return update.content.type === 'text' ? update.content.text : '';
    })
    .join('');
}
