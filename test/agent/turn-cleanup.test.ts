import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

/** A result no recorder can store: structured output nested far deeper than the stack allows (a hostile MCP server). */
const hostile = defineTool({
  name: 'hostile',
  description: 'returns something unstorable',
  parameters: z.object({}),
  risk: 'read',
  async execute() {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    return { content: [{ type: 'text', text: 'done' }], structured: { deep } };
  },
});

describe('the end of a turn', () => {
  it('cannot skip its cleanup: a turn whose events cannot be stored ends with an error, and the session answers its next prompt', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'hostile', input: {} }] }, { text: 'next answer' }]);
    const agent = makeAgent(model, {}, { tools: [hostile] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const first = await collect(agent, sessionId, 'call it');
    expect(first.at(-1)).toMatchObject({ type: 'error', error: { code: 'internal_error' } });

    const second = await collect(agent, sessionId, 'still there?');
    expect(second.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(textOf(second)).toBe('next answer');
    // The failed turn stored no call without a result: the next request is a valid prompt.
    expect(JSON.stringify(model.calls[1]!.prompt)).not.toContain('hostile');
  });
});
