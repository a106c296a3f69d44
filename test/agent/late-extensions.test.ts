import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentExtension } from '../../src/agent/agent-extension.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject, textOf } from './agent-test-kit.js';

const lateTool = defineTool({
  name: 'late_tool',
  description: 'offered by a late extension',
  parameters: z.object({}),
  risk: 'read',
  execute: async () => textResult('late'),
});

/** Extensions loaded when the first session starts (the default agent's MCP registry, skills, rules…). */
describe('late extensions (loadExtensions)', () => {
  it('are not loaded before a session starts, then are isolated one by one like the others', async () => {
    let loads = 0;
    const broken: AgentExtension = {
      name: 'broken',
      systemPrompt: () => {
        throw new Error('rules file unreadable');
      },
    };
    const working: AgentExtension = { name: 'working', tools: () => [lateTool], systemPrompt: () => 'late prompt part' };
    const model = scriptedModel([{ text: 'ok' }]);
    const agent = makeAgent(model, {}, {
      loadExtensions: async () => {
        loads++;
        return [broken, working];
      },
    });
    expect(loads).toBe(0);
    const session = await agent.sessions.create({ cwd: tempProject() });
    const events = await collect(agent, session.sessionId, 'hi');
    expect(loads).toBe(1);
    // One extension failing does not take the other's tools or prompt part with it.
    const prompt = JSON.stringify(model.calls[0]!.prompt);
    expect(prompt).toContain('late prompt part');
    expect(model.calls[0]!.tools?.map((tool) => tool.name)).toContain('late_tool');
    expect(events.some((event) => event.type === 'notice' && event.message.includes('broken'))).toBe(true);
    expect(textOf(events)).toBe('ok');
  });

  it('a failed load is a notice, not a failure, and is tried again before the next hook', async () => {
    let loads = 0;
    const model = scriptedModel([{ text: 'first' }, { text: 'second' }]);
    const agent = makeAgent(model, {}, {
      loadExtensions: async () => {
        if (++loads === 1) throw new Error('index unavailable');
        return [{ name: 'working', tools: () => [lateTool] }];
      },
    });
    const session = await agent.sessions.create({ cwd: tempProject() });
    const first = await collect(agent, session.sessionId, 'one');
    expect(textOf(first)).toBe('first');
    const second = await collect(agent, session.sessionId, 'two');
    expect(textOf(second)).toBe('second');
    expect(loads).toBe(2);
    expect(model.calls[1]!.tools?.map((tool) => tool.name)).toContain('late_tool');
  });
});
