import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from './agent-test-kit.js';

describe('cancelling a streaming model step', () => {
  it('stops reading the model stream when the turn is cancelled', async () => {
    const model = scriptedModel([{ text: 'word '.repeat(200), chunkDelayMs: 20 }]);
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const controller = new AbortController();
    let deltas = 0;
    const events = await collect(agent, sessionId, 'talk', undefined, { signal: controller.signal }, (event) => {
      if (event.type === 'text-delta' && ++deltas === 3) controller.abort();
    });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
    // 125 chunks were scripted; a cancelled turn must not wait for (or forward) the rest.
    expect(deltas).toBeLessThan(10);
  });
});
