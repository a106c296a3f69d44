/**
 * A2A turn round trip over the built CLI (`--adapter a2a`), driven by the official
 * `@a2a-js/sdk` client: one blocking `SendMessage` per turn on one `contextId`, against the
 * instant model the ACP benches use, so the numbers compare with ACP over HTTP.
 */
import { spawn } from 'node:child_process';
import { Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const TOKEN = 'bench-token-0123456789abcdef';

export async function a2aOverCli(cli: string, cwd: string, modelUrl: string, timed: (run: () => Promise<unknown>) => Promise<number[]>): Promise<number[]> {
  const child = spawn(process.execPath, [cli, '--adapter', 'a2a', '--port', '0', '--model', 'openai-compatible:instant', '--base-url', modelUrl], {
    cwd,
    env: { ...process.env, PLAITED_AUTH_TOKEN: TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const origin = await new Promise<string>((found, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`no A2A URL within 15 s: ${stderr}`)), 15_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /A2A at (http:\/\/\S+)\/a2a /.exec(stderr);
        if (match) {
          clearTimeout(timer);
          found(match[1]!);
        }
      });
    });
    const fetchImpl: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      request.headers.set('authorization', `Bearer ${TOKEN}`);
      return fetch(request);
    };
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }),
    ).createFromUrl(origin);
    const contextId = crypto.randomUUID();
    const message = (): SendMessageRequest => ({
      tenant: '',
      configuration: undefined,
      metadata: undefined,
      message: { messageId: crypto.randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hi' }, mediaType: 'text/plain', filename: '', metadata: undefined }], metadata: undefined, extensions: [], referenceTaskIds: [] },
    });
    return await timed(() => client.sendMessage(message()));
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}
