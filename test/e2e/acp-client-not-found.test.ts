import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';

const bed = acpTestBed({ prefix: 'plaited-acp-notfound-' });

/** The ways real ACP clients answer `fs/read_text_file` for a file that does not exist. */
const NOT_FOUND_SHAPES: Array<[string, () => Error]> = [
  ['ACP resource not found (-32002)', () => acp.RequestError.resourceNotFound('file:///x')],
  ['acpx: -32603 with data.details ENOENT', () => new acp.RequestError(-32603, 'Internal error', { details: "ENOENT: no such file or directory, open '/x/new.txt'" })],
  ['-32603 with the cause as a data string', () => new acp.RequestError(-32603, 'Internal error', 'File does not exist')],
  ['the cause in the message', () => new acp.RequestError(-32603, 'ENOENT: no such file or directory')],
];

describe('write_file through an ACP client that reads files itself', () => {
  it.each(NOT_FOUND_SHAPES)('creates a new file when the client reports not-found as %s', async (_shape, notFound) => {
    const cwd = bed.project();
    const written: Array<{ path: string; content: string }> = [];
    const cli = bed.start(cwd, {
      onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }),
      configureClient: (client) => {
        client.onRequest('fs/read_text_file', () => {
          throw notFound();
        });
        client.onRequest('fs/write_text_file', ({ params }) => {
          written.push({ path: params.path, content: params.content });
          return {};
        });
      },
    });
    await initialize(cli, { fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'fresh\n' } }] }, { text: 'Created.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'create new.txt' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(written).toEqual([{ path: join(cwd, 'new.txt'), content: 'fresh\n' }]);
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).toContain('Created new.txt');
  });

  it('still refuses to overwrite when the client fails for another reason', async () => {
    const cwd = bed.project();
    const written: string[] = [];
    const cli = bed.start(cwd, {
      onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }),
      configureClient: (client) => {
        client.onRequest('fs/read_text_file', () => {
          throw new acp.RequestError(-32603, 'Internal error', { details: 'EACCES: permission denied' });
        });
        client.onRequest('fs/write_text_file', ({ params }) => {
          written.push(params.path);
          return {};
        });
      },
    });
    await initialize(cli, { fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'locked.txt', content: 'x' } }] }, { text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write locked.txt' }] });
    expect(written).toEqual([]);
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).toContain('Cannot write locked.txt');
  });
});
