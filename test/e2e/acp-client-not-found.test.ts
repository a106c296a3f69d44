import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';

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
 * client behaviour, session and project folder.
 */
const bed = sharedAcpBed({ prefix: 'plaited-acp-notfound-' });
const files = new Map<string, ClientFiles>();
const filesOf = (sessionId: string): ClientFiles => {
  const found = files.get(sessionId);
  if (!found) throw new Error(`no client files for session ${sessionId}`);
  return found;
};
const shared = bed.shared(
  {
    configureClient: (client) => {
      client.onRequest('fs/read_text_file', ({ params }) => filesOf(params.sessionId).read());
      client.onRequest('fs/write_text_file', ({ params }) => {
        filesOf(params.sessionId).written.push({ path: params.path, content: params.content });
        return {};
      });
    },
  },
  { fs: { readTextFile: true, writeTextFile: true } },
);

/** A session in a project folder of its own, whose client reads fail with `readError`. */
async function session(readError: () => Error): Promise<{ cwd: string; sessionId: string; written: ClientFiles['written'] }> {
  const cwd = bed.project();
  const sessionId = await shared.session(cwd);
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
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'fresh\n' } }] }, { text: 'Created.' });
    const response = await shared.cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'create new.txt' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(written).toEqual([{ path: join(cwd, 'new.txt'), content: 'fresh\n' }]);
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).toContain('Created new.txt');
  });

  it('still refuses to overwrite when the client fails for another reason', async () => {
    const { sessionId, written } = await session(() => new acp.RequestError(-32603, 'Internal error', { details: 'EACCES: permission denied' }));
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'locked.txt', content: 'x' } }] }, { text: 'ok' });
    await shared.cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write locked.txt' }] });
    expect(written).toEqual([]);
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).toContain('Cannot write locked.txt');
  });
});
