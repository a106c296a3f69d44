import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { agentText, initialize } from '../helpers/acp-cli.js';
import { newSession, project, prompt, route, start, state, stop, systemOf, updatesOf, useScenario, waitFor } from './behaviours-kit.js';

useScenario();

const filler = (word: string) => `${word} `.repeat(150);
const isCompaction = (system: string) => system.startsWith('You compact a conversation');
const isEpisode = (system: string) => system.startsWith('You write the episodic memory');

describe('context behaviours through the CLI over ACP', () => {
  it('compaction triggered by a small context window keeps the session usable; session/load still has the full history', async () => {
    const cwd = project(JSON.stringify({ agent: { contextWindow: 500, compactAt: 0.8, compactKeepTurns: 1 } }));
    route((request) => {
      if (isCompaction(systemOf(request))) return { text: 'SUMMARY: pears and plums were discussed.' };
      const last = JSON.stringify(request.messages.at(-1));
      return { text: `reply to ${/(pears|plums|figs)/.exec(last)?.[1] ?? 'something'}` };
    });
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd, { session: { compaction: {} } });
    await prompt(cli, sessionId, `pears ${filler('pears')}`);
    await prompt(cli, sessionId, `plums ${filler('plums')}`);
    expect((await prompt(cli, sessionId, 'figs, briefly')).stopReason).toBe('end_turn');
    const compactions = updatesOf(cli, sessionId, 'compaction_update');
    expect(compactions.map((update) => update.status)).toContain('completed');
    const completed = compactions.find((update) => update.status === 'completed')!;
    expect(JSON.stringify(completed.summary)).toContain('pears and plums');
    expect(completed.compactionId).toBe(compactions[0]!.compactionId);
    const lastTurn = state.server.requests.filter((request) => !isCompaction(systemOf(request))).at(-1)!;
    const sent = JSON.stringify(lastTurn.messages);
    expect(sent).toContain('[Summary of the earlier conversation]');
    expect(sent).not.toContain('pears pears pears');
    expect(agentText(cli, sessionId)).toContain('reply to figs');
    await stop(cli);

    // A client without the capability is not sent compaction updates, and gets the full replay.
    const again = start(cwd);
    await initialize(again);
    await again.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayedUser = updatesOf(again, sessionId, 'user_message_chunk').map((update) => JSON.stringify(update.content));
    expect(replayedUser).toHaveLength(3);
    expect(replayedUser[0]).toContain('pears pears');
    expect(updatesOf(again, sessionId, 'compaction_update')).toEqual([]);
  });

  it('injects an episode from an earlier session into a new one', async () => {
    const cwd = project(JSON.stringify({ agent: { episodic: { enabled: true, inject: 3 } } }));
    route((request) => {
      const system = systemOf(request);
      if (isEpisode(system)) return { text: 'Episode: the user deployed the staging server with rsync over ssh.' };
      return { text: 'Done.' };
    });
    const first = start(cwd);
    const one = await newSession(first, cwd);
    await prompt(first, one.sessionId, 'deploy the staging server');
    await waitFor(() => state.server.requests.some((request) => isEpisode(systemOf(request))), 'the episode summary request');
    // Shutting down waits for episodes still being written.
    await stop(first);

    const second = start(cwd);
    const two = await newSession(second, cwd);
    const before = state.server.requests.length;
    await prompt(second, two.sessionId, 'deploy staging again please');
    const turn = state.server.requests.slice(before).find((request) => !isEpisode(systemOf(request)))!;
    expect(systemOf(turn)).toContain('Episodes from earlier sessions');
    expect(systemOf(turn)).toContain('rsync over ssh');
  });

  describe('web_fetch', () => {
    let site: Server | undefined;
    const hanging: ServerResponse[] = [];
    afterEach(async () => {
      for (const res of hanging.splice(0)) res.destroy();
      site?.closeAllConnections();
      await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
      site = undefined;
    });

    it('fetches from 127.0.0.1: a large page is capped, a slow page times out', async () => {
      site = createServer((req, res) => {
        if (req.url === '/large') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<html><body><h1>Big</h1><p>${'word '.repeat(40_000)}</p></body></html>`);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('starting...');
        hanging.push(res);
      });
      await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      const cwd = project(JSON.stringify({ agent: { webFetch: { timeoutMs: 500 } } }));
      const cli = start(cwd);
      const { sessionId } = await newSession(cli, cwd);
      state.server.push(
        {
          toolCalls: [
            { name: 'web_fetch', arguments: { url: `${base}/large` } },
            { name: 'web_fetch', arguments: { url: `${base}/slow` } },
          ],
        },
        { text: 'Fetched.' },
      );
      const before = state.server.requests.length;
      expect((await prompt(cli, sessionId, 'fetch both')).stopReason).toBe('end_turn');
      const calls = updatesOf(cli, sessionId, 'tool_call');
      expect(calls.map((call) => call.kind)).toEqual(['fetch', 'fetch']);
      const tools = state.server.requests[before + 1]!.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
      expect(tools[0]).toContain('BIG');
      expect(tools[0]).toContain('truncated at 51200 bytes');
      expect(tools[0]!.length).toBeLessThan(60_000);
      expect(tools[1]).toContain('timeout');
    });
  });
});
