import { describe, expect, it } from 'vitest';
import { routedModel } from './routed-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

/** `ProcessOptions.stepModel`: an adapter's model for each step of a turn, the session's when it answers undefined. */
describe('ProcessOptions.stepModel', () => {
  it('is asked before every step, and undefined falls back to the session model', async () => {
    const own = routedModel(() => ({ toolCalls: [{ name: 'plan', input: { items: [{ content: 'step one', priority: 'high' }] } }] }));
    const routed = routedModel(() => ({ text: 'From the route.' }));
    const agent = makeAgent(own);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const asked: unknown[] = [];
    const stepModel = async (options: unknown) => {
      asked.push(options);
      // Routed once the session's model has answered a step: the next step goes to the route.
      return own.calls.length > 0 ? routed : undefined;
    };
    const events = await collect(agent, sessionId, 'plan it', undefined, { stepModel });
    expect([own.calls.length, routed.calls.length]).toEqual([1, 1]);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(textOf(events)).toBe('From the route.');
    // The plan's result went to the routed model: the history is the session's.
    expect(routed.calls[0]!.text).toContain('step one');
  });
});
