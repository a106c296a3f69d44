import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { createAgent } from '../../src/agent/create-agent.js';
import { createMcpExtension } from '../../src/mcp/mcp-extension.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { askElicitation } from '../../src/mcp/ask-elicitation.js';
import { createMcpRegistry } from '../../src/mcp/create-mcp-registry.js';
import type { McpRegistry } from '../../src/mcp/mcp-registry.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import type { ToolContext } from '../../src/contracts/tool.js';
import { stdioConfig } from './fixture-servers.js';
import { tempDir } from './registry-helpers.js';

let registry: McpRegistry | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await registry?.close();
  cleanup?.();
});

function toolContext(sessionId: string, onEvent: (event: AgentOutput) => void): ToolContext {
  return {
    runtime: createLocalRuntime(tmpdir()),
    signal: new AbortController().signal,
    sessionId,
    toolCallId: 'call-1',
    allowedRoots: [],
    onUpdate: () => undefined,
    emit: onEvent,
  };
}

describe('elicitation as a permission-style question', () => {
  it('asks the user through the running tool call and returns the choice to the server', async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    registry = await createMcpRegistry({
      config: configSchema.parse({ mcp: { servers: [stdioConfig('asker')] } }),
      indexPath: join(temp.dir, 'index.db'),
    });
    await registry.idle();
    const events: AgentOutput[] = [];
    const context = toolContext('s1', (event) => {
      events.push(event);
      if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'elicit-0' });
    });
    const result = await registry.tools.execute('mcp__asker__confirm', { question: 'Deploy now?' }, { sessionId: 's1', context });
    expect(result.content).toEqual([{ type: 'text', text: 'accept: {"proceed":true}' }]);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'permission-request',
        sessionId: 's1',
        title: 'asker asks: Deploy now?',
        options: [
          { optionId: 'elicit-0', name: 'Yes', kind: 'allow_once' },
          { optionId: 'elicit-1', name: 'No', kind: 'allow_once' },
          { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
        ],
      }),
    ]);

    const declined: AgentOutput[] = [];
    const free = await registry.tools.execute('mcp__asker__ask', { question: 'Your name?' }, { sessionId: 's1', context: toolContext('s1', (event) => declined.push(event)) });
    expect(free.content).toEqual([{ type: 'text', text: 'decline: {}' }]);
    expect(declined).toEqual([expect.objectContaining({ type: 'notice', level: 'warning', message: expect.stringContaining('cannot collect') })]);
  });

  it('offers enum values as options and cancels with the signal', async () => {
    const events: AgentOutput[] = [];
    const controller = new AbortController();
    const pending = askElicitation(
      { mode: 'form', message: 'Pick a size', requestedSchema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M'] } }, required: ['size'] } },
      { sessionId: 's', serverId: 'shop', emit: (event) => events.push(event), signal: controller.signal },
    );
    expect(events[0]).toMatchObject({ type: 'permission-request', options: [{ name: 'S' }, { name: 'M' }, { name: 'Decline' }] });
    controller.abort();
    expect(await pending).toEqual({ action: 'cancel' });
    const chosen = askElicitation(
      { mode: 'form', message: 'Pick a size', requestedSchema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M'] } }, required: ['size'] } },
      { sessionId: 's', serverId: 'shop', emit: (event) => event.type === 'permission-request' && event.respond({ outcome: 'selected', optionId: 'elicit-1' }) },
    );
    expect(await chosen).toEqual({ action: 'accept', content: { size: 'M' } });
  });

  it('cancels at once, without asking, when the signal was aborted before the question', async () => {
    const events: AgentOutput[] = [];
    const result = await askElicitation(
      { mode: 'form', message: 'Proceed?', requestedSchema: { type: 'object', properties: {}, required: [] } },
      { sessionId: 's', serverId: 'late', emit: (event) => events.push(event), signal: AbortSignal.abort() },
    );
    expect(result).toEqual({ action: 'cancel' });
    expect(events).toEqual([]);
  });

  it('reaches the user as a permission request in the agent turn while the tool call waits', async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-elicit-'));
    const config = configSchema.parse({ mcp: { servers: [stdioConfig('asker')] }, agent: { stateDb: join(cwd, 'state.db') } });
    registry = await createMcpRegistry({ config, indexPath: join(temp.dir, 'index.db') });
    await registry.idle();
    const model = scriptedModel([{ toolCalls: [{ name: 'mcp__asker__confirm', input: { question: 'Ship it?' } }] }, { text: 'Shipped.' }]);
    const agent = createAgent({ config, model, extensions: [createMcpExtension({ registry, config })], tools: [] });
    try {
      const created = await agent.sessions.create({ cwd });
      const questions: string[] = [];
      for await (const event of agent.process({ sessionId: created.sessionId, prompt: [{ type: 'text', text: 'ship' }] })) {
        if (event.type !== 'permission-request') continue;
        questions.push(event.title);
        const elicit = event.options.find((option) => option.name === 'Yes');
        event.respond({ outcome: 'selected', optionId: elicit?.optionId ?? event.options.find((option) => option.kind === 'allow_once')!.optionId });
      }
      expect(questions).toContain('asker asks: Ship it?');
      expect(JSON.stringify(model.calls[1]!.prompt)).toContain('accept: {\\"proceed\\":true}');
    } finally {
      await agent.stop();
    }
  });
});
