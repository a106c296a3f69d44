import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = acpTestBed({ prefix: 'plaited-model-conn-' });

describe('connections to the model (the built CLI, an OpenAI-compatible server)', () => {
  it('50 concurrent prompts never have more than agent.maxConcurrentModelCalls model calls open at once; all are answered', async () => {
    const cap = 4;
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { maxConcurrentModelCalls: cap } }));
    // Every reply is held until the test lets it go, so calls pile up as far as the agent lets them.
    const held: Array<() => void> = [];
    let released = 0;
    bed.server.push(
      ...Array.from({ length: 50 }, (_, index) => ({
        text: `answer ${index}`,
        until: new Promise<void>((release) => held.push(release)),
      })),
    );
    const cli = bed.start(cwd);
    await initialize(cli);
    const sessions = await Promise.all(Array.from({ length: 50 }, () => cli.agent.request('session/new', { cwd, mcpServers: [] })));
    const turns = Promise.all(sessions.map(({ sessionId }) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })));
    while (released < 50) {
      // As many calls as the cap allows (fewer at the end) are open: let them all finish.
      await waitFor(() => bed.server.requests.length - released >= Math.min(cap, 50 - released), 20_000, `${Math.min(cap, 50 - released)} open calls`);
      const upTo = bed.server.requests.length;
      for (; released < upTo; released++) held[released]!();
    }
    const results = await turns;
    expect(results.every((result) => result.stopReason === 'end_turn')).toBe(true);
    expect(bed.server.requests).toHaveLength(50);
    expect(bed.server.peakOpen()).toBe(cap);
    const texts = new Set(sessions.map(({ sessionId }) => agentText(cli, sessionId)));
    expect(texts.size).toBe(50);
  });

  it('a keep-alive connection the server dropped fails no call: it is retried once on a fresh connection', async () => {
    const cwd = bed.project();
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'First.' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] })).stopReason).toBe('end_turn');
    // The next request finds its socket closed by the server: no byte of reply, "other side closed".
    bed.server.push({ dropConnection: true }, { text: 'Second, on a fresh connection.' });
    const from = cli.updates.length;
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId, from)).toBe('Second, on a fresh connection.');
    expect(bed.server.requests).toHaveLength(3);
  });
});
