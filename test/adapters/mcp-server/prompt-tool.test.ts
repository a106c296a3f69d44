import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/agent/create-agent.js';
import type { Agent } from '../../../src/agent/agent.js';
import { configSchema } from '../../../src/config/schema.js';
import { createAgentMcpServer } from '../../../src/adapters/mcp-server/create-agent-mcp-server.js';
import { scriptedModel, type MockStep } from '../../helpers/scripted-mock-model.js';
import { resultText } from './mcp-test-kit.js';

const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop();
});

async function connect(steps: MockStep[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-prompt-tool-'));
  const model = scriptedModel(steps);
  const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model, tools: [] });
  agents.push(agent);
  const server = createAgentMcpServer(agent, { cwd, skills: [] });
  const client = new Client({ name: 'host', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return Object.assign(client, { model });
}

describe('the prompt tool', () => {
  it('two calls on one session at once each get their own answer (the second waits its turn)', async () => {
    // The first turn takes two model steps (a tool call, then text): a steered message would join it.
    const client = await connect([
      { toolCalls: [{ name: 'no_such_tool', input: {} }], chunkDelayMs: 100 },
      { text: 'first answer' },
      { text: 'second answer' },
    ]);
    const opened = await client.callTool({ name: 'new_session', arguments: {} });
    const sessionId = (opened.structuredContent as { sessionId: string }).sessionId;
    const firstCall = client.callTool({ name: 'prompt', arguments: { prompt: 'one', sessionId } });
    // The second call arrives while the first turn is streaming.
    while (client.model.calls.length === 0) await new Promise((tick) => setTimeout(tick, 5));
    const [first, second] = await Promise.all([firstCall, client.callTool({ name: 'prompt', arguments: { prompt: 'two', sessionId } })]);
    expect(resultText(first)).toBe('first answer');
    expect(resultText(second)).toBe('second answer');
  });

  it('new_session refuses a relative cwd', async () => {
    const client = await connect([]);
    const result = await client.callTool({ name: 'new_session', arguments: { cwd: 'relative/path' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('absolute');
  });
});
