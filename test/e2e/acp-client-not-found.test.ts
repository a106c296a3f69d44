import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';

/** The ways real ACP clients answer `fs/read_text_file` for a file that does not exist. */
const NOT_FOUND_SHAPES: Array<[string, () => Error]> = [
  ['ACP resource not found (-32002)', () => acp.RequestError.resourceNotFound('file:///x')],
  ['acpx: -32603 with data.details ENOENT', () => new acp.RequestError(-32603, 'Internal error', { details: "ENOENT: no such file or directory, open '/x/new.txt'" })],
  ['-32603 with the cause as a data string', () => new acp.RequestError(-32603, 'Internal error', 'File does not exist')],
  ['the cause in the message', () => new acp.RequestError(-32603, 'ENOENT: no such file or directory')],
];

/** How the client answers one session's file requests. */
interface ClientFiles {
  read(): never;
  written: Array<{ path: string; content: string }>;
}

/**
 * One model server and one CLI for the file (a start is ~1 s of CPU): its client answers each
 * session's file requests the way that session's test set (`files`), so every test has its own
 * client behaviour, session and project folder. After each test no scripted step may be left
 * over and the traffic matches the schema.
 */
let server: ScriptedOpenAIServer;
let cli: AcpCli;
const files = new Map<string, ClientFiles>();
const filesOf = (sessionId: string): ClientFiles => {
  const found = files.get(sessionId);
  if (!found) throw new Error(`no client files for session ${sessionId}`);
  return found;
};

beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-acp-notfound-'));
  cli = startAcpCli({
    cwd,
    args: ['--model', 'openai-compatible:scripted', '--base-url', server.url],
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }),
    configureClient: (client) => {
      client.onRequest('fs/read_text_file', ({ params }) => filesOf(params.sessionId).read());
      client.onRequest('fs/write_text_file', ({ params }) => {
        filesOf(params.sessionId).written.push({ path: params.path, content: params.content });
        return {};
      });
    },
  });
  await initialize(cli, { fs: { readTextFile: true, writeTextFile: true } });
});
afterAll(async () => {
  await cli?.close();
  await server?.close();
});
afterEach(() => {
  expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
  expect(server.pending(), 'scripted steps the test left unused').toBe(0);
});

/** A session in a project folder of its own, whose client reads fail with `readError`. */
async function session(readError: () => Error): Promise<{ cwd: string; sessionId: string; written: ClientFiles['written'] }> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-acp-notfound-'));
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const written: ClientFiles['written'] = [];
  files.set(sessionId, {
    read: () => {
      throw readError();
    },
    written,
  });
  return { cwd, sessionId, written };
}

describe('write_file through an ACP client that reads files itself', () => {
  it.each(NOT_FOUND_SHAPES)('creates a new file when the client reports not-found as %s', async (_shape, notFound) => {
    const { cwd, sessionId, written } = await session(notFound);
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'fresh\n' } }] }, { text: 'Created.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'create new.txt' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(written).toEqual([{ path: join(cwd, 'new.txt'), content: 'fresh\n' }]);
    expect(JSON.stringify(server.requests.at(-1)!.messages)).toContain('Created new.txt');
  });

  it('still refuses to overwrite when the client fails for another reason', async () => {
    const { sessionId, written } = await session(() => new acp.RequestError(-32603, 'Internal error', { details: 'EACCES: permission denied' }));
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'locked.txt', content: 'x' } }] }, { text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write locked.txt' }] });
    expect(written).toEqual([]);
    expect(JSON.stringify(server.requests.at(-1)!.messages)).toContain('Cannot write locked.txt');
  });
});
