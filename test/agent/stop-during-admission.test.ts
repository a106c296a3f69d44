import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { createAgent } from '../../src/agent/create-agent.js';
import { configSchema } from '../../src/config/schema.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';

/**
 * A stop (a replica's SIGTERM) that begins while a prompt or a session request is between its
 * check and its store writes: the request is waited for or refused `agent_draining`, and nothing
 * writes to the store after it closed (the 1,000-turn replica test met "Cannot use a pool after
 * calling end on the pool" as an internal error).
 */
function agentIn(cwd: string) {
  return createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model: scriptedModel([{ text: 'answered' }]), tools: [] });
}

async function collect(events: AsyncIterable<AgentOutput>): Promise<AgentOutput[]> {
  const seen: AgentOutput[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('a stop that begins while a session is closing', () => {
  it("waits for the close under way (the ACP face closes a gone client's sessions without waiting) before the extensions close", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-stop-closing-'));
    const order: string[] = [];
    writeFileSync(join(cwd, 'notes.txt'), 'x');
    const agent = createAgent({
      config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }),
      model: scriptedModel([]),
      tools: [],
      extensions: [
        {
          name: 'slow-close',
          // Real I/O, as an MCP server's removal does: it ends on a later turn of the event loop.
          onSessionClose: async () => {
            await readFile(join(cwd, 'notes.txt'));
            order.push('session closed');
          },
          close: () => void order.push('extensions closed'),
        },
      ],
    });
    const { sessionId } = await agent.sessions.create({ cwd });
    void agent.sessions.close(sessionId);
    await agent.stop();
    expect(order).toEqual(['session closed', 'extensions closed']);
  });
});

describe('a stop that begins during an admission', () => {
  it('refuses the prompt agent_draining or lets its turn end; never an internal error', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-stop-admission-'));
    const agent = agentIn(cwd);
    const { sessionId } = await agent.sessions.create({ cwd });
    // The prompt's admission starts (its first await: opening the session), then the stop begins.
    const turn = collect(agent.process({ sessionId, prompt: [{ type: 'text', text: 'hi' }] }));
    await agent.stop();
    const events = await turn;
    const errors = events.filter((event) => event.type === 'error');
    const ended = events.some((event) => event.type === 'turn-end');
    expect(errors.map((event) => event.type === 'error' && event.error.code), JSON.stringify(events)).toEqual(ended ? [] : ['agent_draining']);
  });

  it('waits for a session request let in before it, and refuses the ones after', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-stop-request-'));
    const agent = agentIn(cwd);
    const { sessionId } = await agent.sessions.create({ cwd });
    const before = agent.sessions.activate(sessionId, cwd);
    const stopping = agent.stop();
    await expect(agent.sessions.list({ cwd })).rejects.toMatchObject({ code: 'agent_draining' });
    await expect(before).resolves.toMatchObject({ sessionId });
    await stopping;
  });
});
