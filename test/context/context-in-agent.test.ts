import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import type { Agent } from '../../src/agent/agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { createContextExtensions } from '../../src/context/context-extensions.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { scriptedModel, type MockStep } from '../helpers/scripted-mock-model.js';
import { copyFixture, testIndex } from './context-test-kit.js';

/**
 * The context extensions inside the real agent core (only the model's replies are scripted):
 * rules reach the system prompt, the plan tool's events reach the stream and the stored
 * history that `session/load` replays.
 */
describe('context extensions in the agent', () => {
  let index: HybridIndex;
  let project: { dir: string; cleanup(): Promise<void> };
  const agents: Agent[] = [];

  beforeAll(async () => {
    // BM25 only: the rules tier-2 lookup must work without an embedder too.
    index = await testIndex();
    project = await copyFixture('rules-project');
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.stop()));
  });
  afterAll(async () => {
    index?.close();
    await project?.cleanup();
  });

  async function run(steps: MockStep[], prompt: string) {
    const config = configSchema.parse({});
    const model = scriptedModel(steps);
    const agent = createAgent({ config, model, extensions: createContextExtensions({ config, index }) });
    agents.push(agent);
    const session = await agent.sessions.create({ cwd: project.dir });
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: prompt }] })) {
      events.push(event);
      if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'allow-once' });
    }
    return { agent, model, session, events };
  }

  it('puts the root rules and matching linked rules in the system prompt', async () => {
    const { model } = await run([{ text: 'ok' }], 'change the database schema for users');
    const system = JSON.stringify(model.calls[0].prompt[0]);
    expect(system).toContain('Use TypeScript strict mode');
    expect(system).toContain('numbered SQL file under migrations/');
    expect(system).not.toContain('Playwright against a server');
  });

  it('hands the model the nested AGENTS.md right after a tool touches a file under it, and not before', async () => {
    const { model, events } = await run(
      [
        { toolCalls: [{ name: 'read_file', input: { path: 'src/auth/x.ts' } }] },
        { text: 'read it' },
      ],
      'look at the login code',
    );
    expect(JSON.stringify(model.calls[0]!.prompt)).not.toContain('Compare secrets in constant time');
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('Compare secrets in constant time');
    // The client's view of the tool result stays the file, not the rules.
    const update = events.find((event) => event.type === 'tool-call-update' && event.status === 'completed');
    expect(JSON.stringify(update)).not.toContain('Compare secrets in constant time');
  });

  it('streams plan updates from the plan tool and stores them for session/load', async () => {
    const { agent, session, events } = await run(
      [
        { toolCalls: [{ name: 'plan', input: { items: [{ content: 'Find the bug', status: 'in_progress' }, { content: 'Fix it' }] } }] },
        { toolCalls: [{ name: 'plan', input: { items: [{ id: '1', status: 'completed' }, { id: '2', status: 'in_progress' }] } }] },
        { text: 'Done.' },
      ],
      'fix the login bug',
    );
    const plans = events.filter((event) => event.type === 'plan');
    expect(plans).toHaveLength(2);
    expect(plans[1]).toMatchObject({
      entries: [
        { content: 'Find the bug', status: 'completed', priority: 'medium' },
        { content: 'Fix it', status: 'in_progress', priority: 'medium' },
      ],
    });
    const history = await agent.sessions.history(session.sessionId, project.dir);
    expect(history.filter((event) => event.type === 'plan')).toEqual(plans);
  });
});
