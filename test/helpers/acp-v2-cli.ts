import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { AcpSchemaValidator, CLI } from './acp-cli.js';
import { onLines } from './stdout-lines.js';
import { trustProjectConfig } from './trust-config.js';

/** The built CLI driven by the SDK's ACP v2 (draft) client, every message checked against the v2 schema. */
export interface AcpV2Cli {
  child: ChildProcessWithoutNullStreams;
  agent: v2.ClientContext;
  validator: AcpSchemaValidator;
  updates: v2.UpdateSessionNotification[];
  permissions: v2.RequestPermissionRequest[];
  stderr(): string;
  close(): Promise<number | null>;
}

export interface StartV2Options {
  cwd: string;
  args?: string[];
  env?: Record<string, string>;
  onPermission?: (request: v2.RequestPermissionRequest) => v2.RequestPermissionResponse | Promise<v2.RequestPermissionResponse>;
  /** Validate against the draft's unstable schema (`session/fork`). */
  unstable?: boolean;
}

export function startAcpV2Cli(options: StartV2Options): AcpV2Cli {
  trustProjectConfig(options.cwd, options.args, options.env);
  const child = spawn(process.execPath, [CLI, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const validator = new AcpSchemaValidator(2, options.unstable ?? false);
  const updates: v2.UpdateSessionNotification[] = [];
  const permissions: v2.RequestPermissionRequest[] = [];

  let push!: (message: v2.AnyMessage) => void;
  let end!: () => void;
  const readable = new ReadableStream<v2.AnyMessage>({
    start(controller) {
      push = (message) => controller.enqueue(message);
      end = () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
    },
  });
  onLines(child.stdout, (line) => {
    let message: v2.AnyMessage;
    try {
      message = JSON.parse(line) as v2.AnyMessage;
    } catch {
      validator.errors.push(`agent wrote a non-JSON line to stdout: ${line.slice(0, 200)}`);
      return;
    }
    validator.check('agent', message as never);
    try {
      push(message);
    } catch {
      // The client stopped reading (its connection closed): a late update has no reader. It was
      // reported as a non-JSON line, which it is not (a session's available commands, under load).
    }
  });
  child.stdout.on('end', () => end());
  const writable = new WritableStream<v2.AnyMessage>({
    write(message) {
      validator.check('client', message as never);
      if (!child.stdin.destroyed) child.stdin.write(`${JSON.stringify(message)}\n`);
    },
  });

  const app = v2
    .client({ name: 'plaited-v2-test-client' })
    .onRequest('session/request_permission', async ({ params }) => {
      permissions.push(params);
      return options.onPermission ? options.onPermission(params) : { outcome: { outcome: 'selected', optionId: params.options[0]!.optionId } };
    })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    });
  const connection = app.connect({ readable, writable });
  return {
    child,
    agent: connection.agent,
    validator,
    updates,
    permissions,
    stderr: () => stderr,
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

export async function initializeV2(cli: Pick<AcpV2Cli, 'agent'>): Promise<v2.InitializeResponse> {
  return cli.agent.request('initialize', { protocolVersion: v2.PROTOCOL_VERSION, info: { name: 'plaited-v2-test-client', version: '1.0.0' }, capabilities: {} });
}

/** The session's state updates so far, as `state[:stopReason]`. */
export function statesOf(cli: Pick<AcpV2Cli, 'updates'>, sessionId: string): string[] {
  return cli.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'state_update')
    .map((n) => {
      const update = n.update as { state: string; stopReason?: string };
      return update.stopReason ? `${update.state}:${update.stopReason}` : update.state;
    });
}
