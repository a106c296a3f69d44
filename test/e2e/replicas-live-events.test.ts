import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { textOf, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';
import { acpClients, gate, replicaFolder } from '../helpers/replica-kit.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let writer: HttpCli;
let reader: HttpCli;
const clients = acpClients();
const connect = (cli: HttpCli) => clients.connect(cli);


beforeAll(async () => {
  cluster = await startPostgresCluster();
  const store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  const args = ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store];
  writer = await startHttpCli({ cwd: replicaFolder(), args, urlPattern: URL_LINE });
  reader = await startHttpCli({ cwd: replicaFolder(), args, urlPattern: URL_LINE });
}, 120_000);
afterAll(async () => {
  await writer?.close();
  await reader?.close();
  await model?.close();
  await cluster?.stop();
}, 60_000);
afterEach(() => {
  clients.closeAll();
});



const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
const updatesOf = (client: AcpHttpClient, sessionId: string, kind: acp.SessionUpdate['sessionUpdate']) =>
  client.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind);

/** A session on the writer replica with a reply streaming into it, held mid-stream until `hold` opens. */
async function streamingSession(hold: Promise<void>, reply: string): Promise<{ a: AcpHttpClient; sessionId: string; cwd: string; prompted: Promise<unknown> }> {
  const cwd = replicaFolder();
  const a = await connect(writer);
  const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
  model.push({ text: reply, chunkDelayMs: 5, holdAfter: { chunks: 30, until: hold } });
  const prompted = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk' }] });
  await waitFor(() => textOf(a, sessionId).includes('w20 '), 15_000, 'the reply streaming on the writer');
  return { a, sessionId, cwd, prompted };
}

describe('ACP session/load of a turn running on another replica (PostgreSQL LISTEN/NOTIFY)', () => {
  it('replays the reply so far, then streams the rest live until the turn ends', async () => {
    const hold = gate();
    const reply = words(120);
    const { a, sessionId, cwd, prompted } = await streamingSession(hold.opened, reply);

    const b = await connect(reader);
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    // What the writer had stored when the load answered; the turn is held, so the rest is still to come.
    await waitFor(() => textOf(b, sessionId).includes('w20 '), 10_000, 'the reply so far replayed on the reader');
    expect(reply.startsWith(textOf(b, sessionId))).toBe(true);
    expect(textOf(b, sessionId)).not.toBe(reply);

    hold.open();
    expect(await prompted).toMatchObject({ stopReason: 'end_turn' });
    await waitFor(() => textOf(b, sessionId) === reply, 15_000, 'the rest of the reply streamed live to the reader');
    expect(textOf(a, sessionId)).toBe(reply);
    expect(updatesOf(b, sessionId, 'user_message_chunk')).toHaveLength(1);

    // The follower reads; the writer still holds the session: a prompt on the reader is refused.
    const refused = await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'mine now?' }] }).then(
      () => undefined,
      (error: { data?: unknown }) => error,
    );
    expect(refused?.data).toMatchObject({ code: 'session_in_use' });
  });

  it('a second connection on the writer replica itself follows the running turn the same way', async () => {
    const hold = gate();
    const reply = words(60);
    const { sessionId, cwd, prompted } = await streamingSession(hold.opened, reply);
    const same = await connect(writer);
    await same.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    hold.open();
    await prompted;
    await waitFor(() => textOf(same, sessionId) === reply, 15_000, 'the rest of the reply on the second connection');
  });

  it('a turn that ends while the reader loads: every chunk once, none lost', async () => {
    for (let round = 0; round < 3; round++) {
      const hold = gate();
      const reply = words(80 + round);
      const { sessionId, cwd, prompted } = await streamingSession(hold.opened, reply);
      const b = await connect(reader);
      // The turn is let go as the load starts: it ends before, during or after the replay.
      const loading = b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      hold.open();
      await Promise.all([loading, prompted]);
      await waitFor(() => textOf(b, sessionId).length >= reply.length, 15_000, 'the whole reply on the reader');
      expect(textOf(b, sessionId)).toBe(reply);
      expect(updatesOf(b, sessionId, 'user_message_chunk')).toHaveLength(1);
    }
  });
});
