import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent/create-agent.js';
import type { Agent } from '../../src/agent/agent.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { StoreRegistry } from '../../src/storage/store-registry.js';
import { acpSettingsFromConfig } from '../../src/adapters/acp/acp-agent-settings.js';
import { authMethods } from '../../src/adapters/acp/acp-auth-methods.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, tempProject, textOf } from './agent-test-kit.js';

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.stop()));
});

describe('createAgent from values (no config)', () => {
  it('runs a turn with the given model, tools, rules, settings and stores', async () => {
    const cwd = tempProject();
    const stores = new StoreRegistry({ path: join(cwd, 'state.db') });
    const shout = defineTool({
      name: 'shout',
      description: 'Upper-cases a word',
      parameters: z.object({ word: z.string() }),
      risk: 'write',
      execute: async (args) => textResult(args.word.toUpperCase()),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'shout', input: { word: 'hi' } }] }, { text: 'never reached' }]);
    const agent = createAgent({
      model,
      tools: [shout],
      stores,
      // A write tool allowed by rule runs unasked; one step per turn ends it after the call.
      toolRules: { ...parseConfig(undefined).tools, allow: ['shout'] },
      settings: { maxSteps: 1, systemPrompt: 'CUSTOM-PROMPT' },
    });
    agents.push(agent);
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'shout hi', () => undefined);
    expect(events.some((event) => event.type === 'permission-request')).toBe(false);
    expect(events.find((event) => event.type === 'tool-call-update' && event.status === 'completed')).toMatchObject({ output: 'HI' });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'max_turn_requests' });
    expect(JSON.stringify(model.calls[0]!.prompt[0])).toContain('CUSTOM-PROMPT');
    expect(textOf(events)).toBe('');
    await agent.stop();
    // The caller's stores stay open: the agent closes only what it opened.
    expect(stores.forProject(cwd).listSessions({}).map((session) => session.sessionId)).toEqual([sessionId]);
    stores.closeAll();
  });

  it("cuts a tool's result past agent.maxToolResultChars, with a note the model reads; a smaller one passes whole", async () => {
    const cwd = tempProject();
    const dump = defineTool({
      name: 'dump',
      description: 'Returns a lot of text',
      parameters: z.object({ size: z.number() }),
      risk: 'read',
      execute: async (args) => textResult('x'.repeat(args.size)),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'dump', input: { size: 3_000_000 } }, { name: 'dump', input: { size: 1_000 } }] }, { text: 'done' }]);
    const agent = createAgent({ model, tools: [dump], stores: new StoreRegistry({ path: join(cwd, 'state.db') }), settings: { maxToolResultChars: 10_000 } });
    agents.push(agent);
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, 'dump it', () => undefined);
    const results = model.calls[1]!.prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content);
    const texts = results.map((part) => JSON.stringify(part.type === 'tool-result' ? part.output : part));
    expect(texts[0]!.length).toBeLessThan(10_400);
    expect(texts[0]).toContain('cut at 10000 of its 3000000 characters (agent.maxToolResultChars)');
    expect(texts[1]).toContain('x'.repeat(1_000));
    expect(texts[1]).not.toContain('cut at');
  });

  it('takes MCP capabilities from the extensions present, not from the core', () => {
    const bare = createAgent({ model: scriptedModel([]) });
    const withMcp = createAgent({ model: scriptedModel([]), extensions: [{ name: 'mcp-like', capabilities: { mcp: { http: true } } }] });
    const late = createAgent({ model: scriptedModel([]), capabilities: { mcp: { http: true, sse: true } }, loadExtensions: async () => [] });
    agents.push(bare, withMcp, late);
    expect(bare.capabilities().mcp).toEqual({ http: false, sse: false });
    expect(withMcp.capabilities().mcp).toEqual({ http: true, sse: false });
    expect(late.capabilities().mcp).toEqual({ http: true, sse: true });
    expect('config' in bare).toBe(false);
  });

  it('ACP settings come from a config, not from the agent: a remote endpoint without a key offers the API-key method', () => {
    const remote = acpSettingsFromConfig(parseConfig({ agent: { model: 'openai-compatible:m', baseURL: 'https://models.example.com/v1' } }));
    const keyed = acpSettingsFromConfig(parseConfig({ agent: { model: 'openai-compatible:m', baseURL: 'https://models.example.com/v1', apiKey: 'k' } }));
    expect(authMethods(remote).map((method) => ('id' in method ? method.id : ''))).toEqual(['plaited-api-key']);
    expect(remote.contextWindow).toBe(128_000);
    expect(keyed.model.hasApiKey).toBe(true);
  });
});
