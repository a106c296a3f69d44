import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientCapabilities, type CreateMessageRequest, type CreateMessageResult } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/agent/create-agent.js';
import type { Agent } from '../../../src/agent/agent.js';
import { configSchema } from '../../../src/config/schema.js';
import { createAgentMcpServer } from '../../../src/adapters/mcp-server/create-agent-mcp-server.js';
import { HostSampling } from '../../../src/adapters/mcp-server/host-sampling.js';
import { resultText } from './mcp-test-kit.js';

const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop();
});

/**
 * An agent with no model of its own, served in-process to a real MCP client over the SDK's
 * linked in-memory transports. The client plays the host: its sampling replies are scripted.
 */
async function setup(options: { capabilities: ClientCapabilities; replies?: Array<CreateMessageResult | Record<string, unknown>> }) {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-sampling-'));
  const sampling = new HostSampling();
  const agent = createAgent({
    config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }),
    model: sampling.resolver(() => Promise.reject(new Error('no local model in this test'))),
  });
  agents.push(agent);
  const server = createAgentMcpServer(agent, { cwd, sampling, skills: [] });
  const client = new Client({ name: 'sampling-host', version: '1.0.0' }, { capabilities: options.capabilities });
  const requests: CreateMessageRequest['params'][] = [];
  const replies = [...(options.replies ?? [])];
  if (options.capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      requests.push(request.params);
      const reply = replies.shift();
      if (!reply) throw new Error('sampling script exhausted');
      return reply as CreateMessageResult;
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { cwd, client, requests };
}

describe('MCP sampling: the mounted agent borrows its host model', () => {
  it('routes every model step of a turn to the host, tools and tool results included', async () => {
    const { cwd, client, requests } = await setup({
      capabilities: { sampling: { tools: {} } },
      replies: [
        { role: 'assistant', model: 'host-model', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 'use-1', name: 'read_file', input: { path: 'notes.txt' } }] },
        { role: 'assistant', model: 'host-model', stopReason: 'endTurn', content: { type: 'text', text: 'The notes say hello.' } },
      ],
    });
    writeFileSync(join(cwd, 'notes.txt'), 'hello from the notes\n');
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'read notes.txt' } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('The notes say hello.');
    const summary = result.structuredContent as { toolCalls: Array<{ toolName: string; status: string }> };
    expect(summary.toolCalls).toEqual([expect.objectContaining({ toolName: 'read_file', status: 'completed' })]);

    expect(requests).toHaveLength(2);
    const first = requests[0]!;
    expect(first.systemPrompt).toBeTruthy();
    expect(first.maxTokens).toBeGreaterThan(0);
    expect((first as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name)).toContain('read_file');
    expect(JSON.stringify(first.messages)).toContain('read notes.txt');
    // The second step carries the call and its result back, as the spec shapes them.
    const second = JSON.stringify(requests[1]!.messages);
    expect(second).toContain('"type":"tool_use"');
    expect(second).toContain('"toolUseId":"use-1"');
    expect(second).toContain('hello from the notes');
  });

  it('a host without tool support in sampling gets plain requests (no tools)', async () => {
    const { client, requests } = await setup({
      capabilities: { sampling: {} },
      replies: [{ role: 'assistant', model: 'host-model', stopReason: 'endTurn', content: { type: 'text', text: 'Plain answer.' } }],
    });
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'just talk' } });
    expect(resultText(result)).toBe('Plain answer.');
    expect((requests[0] as { tools?: unknown }).tools).toBeUndefined();
  });

  it('without sampling support the fallback model is used, and its failure is reported', async () => {
    const { client } = await setup({ capabilities: {} });
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'hello?' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('no local model in this test');
    expect((result.structuredContent as { stopReason: string }).stopReason).toBe('error');
  });

  it('a host that fails sampling ends the turn with a clear error', async () => {
    const { client } = await setup({ capabilities: { sampling: {} }, replies: [] });
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'hello?' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/sampling/i);
  });
});
