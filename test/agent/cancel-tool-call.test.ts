import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { ToolCallCancelError } from '../../src/agent/running-tool-calls.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { makeAgent, tempProject, waitFor } from './agent-test-kit.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';

/** A read tool that waits until its signal aborts (or `release` is called), then says how it ended. */
function waitingTool() {
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  const tool = defineTool({
    name: 'wait',
    description: 'waits',
    parameters: z.object({ id: z.string() }),
    risk: 'read',
    async execute(args, context) {
      if (args.id === 'quick') return textResult('quick done');
      await Promise.race([released, new Promise((done) => context.signal.addEventListener('abort', done, { once: true }))]);
      return textResult(context.signal.aborted ? `${args.id} stopped` : `${args.id} done`);
    },
  });
  return { tool, release };
}

/** A library user's tool that never settles and ignores its signal. */
const stuckTool = defineTool({ name: 'stuck', description: 'never ends', parameters: z.object({}), risk: 'read', execute: () => new Promise(() => undefined) });

describe('a tool that never settles and ignores its signal', () => {
  it('is let go when the turn is cancelled: the turn ends cancelled and the agent stops', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'stuck-1', name: 'stuck', input: {} }] }]);
    const agent = makeAgent(model, {}, { tools: [stuckTool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const controller = new AbortController();
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'go' }] }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'tool-call-update' && event.status === 'in_progress') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
    await agent.stop();
  });

  it('is let go when that call alone is cancelled: the model hears so and the turn goes on', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'stuck-2', name: 'stuck', input: {} }] }, { text: 'Moved on.' }]);
    const agent = makeAgent(model, {}, { tools: [stuckTool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'go' }] })) {
      events.push(event);
      if (event.type === 'tool-call-update' && event.status === 'in_progress') agent.cancelToolCall(sessionId, 'stuck-2');
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool-call-update', toolCallId: 'stuck-2', status: 'failed', cancelled: true }));
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('The user cancelled this tool call while it ran');
    await agent.stop();
  });
});

describe('cancelling one tool call', () => {
  it('aborts that call only: the model is told the user cancelled it, the others finish, the turn goes on', async () => {
    const { tool } = waitingTool();
    const model = scriptedModel([
      { toolCalls: [{ id: 'slow', name: 'wait', input: { id: 'slow' } }, { id: 'quick', name: 'wait', input: { id: 'quick' } }] },
      { text: 'Understood, skipped it.' },
    ]);
    const agent = makeAgent(model, {}, { tools: [tool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'go' }] })) {
      events.push(event);
      if (event.type === 'tool-call-update' && event.toolCallId === 'slow' && event.status === 'in_progress') {
        expect(event.cancellable).toBe(true);
        agent.cancelToolCall(sessionId, 'slow');
      }
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    const final = events.filter((event) => event.type === 'tool-call-update' && event.status !== 'in_progress');
    expect(final).toEqual([
      expect.objectContaining({ toolCallId: 'slow', status: 'failed', cancelled: true }),
      expect.objectContaining({ toolCallId: 'quick', status: 'completed' }),
    ]);
    expect((final[1] as { cancelled?: boolean }).cancelled).toBeUndefined();
    const toModel = JSON.stringify(model.calls[1]!.prompt);
    expect(toModel).toContain('The user cancelled this tool call while it ran');
    expect(toModel).toContain('slow stopped');
    expect(toModel).toContain('quick done');
    // Once final, the call can no longer be cancelled; a call never seen is unknown.
    expect(() => agent.cancelToolCall(sessionId, 'slow')).toThrow(expect.objectContaining({ name: 'ToolCallCancelError', reason: 'final' }));
    expect(() => agent.cancelToolCall(sessionId, 'nope')).toThrow(ToolCallCancelError);
    expect(() => agent.cancelToolCall(sessionId, 'nope')).toThrow(expect.objectContaining({ reason: 'unknown' }));
  });

  it('kills a running bash command and its children; the turn ends normally', async () => {
    const cwd = tempProject();
    const sleep = uniqueSleep();
    const model = scriptedModel([
      { toolCalls: [{ id: 'sleepy', name: 'bash', input: { command: `${sleep}; echo never` } }] },
      { text: 'Stopped it.' },
    ]);
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd });
    const events: AgentOutput[] = [];
    let cancelling: Promise<void> | undefined;
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'sleep' }] })) {
      events.push(event);
      if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'allow-once' });
      if (event.type === 'tool-call-update' && event.status === 'in_progress') {
        cancelling = waitFor(() => processesMatching(sleep).length > 0, 10_000, 'the sleep').then(() => agent.cancelToolCall(sessionId, 'sleepy'));
      }
    }
    await cancelling;
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(events.find((event) => event.type === 'tool-call-update' && event.status === 'failed')).toMatchObject({ cancelled: true });
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('Command aborted.');
    expect(processesMatching(sleep)).toEqual([]);
  });

  it('a cancel of the whole turn is not a per-call cancel: the turn ends cancelled', async () => {
    const { tool } = waitingTool();
    const model = scriptedModel([{ toolCalls: [{ id: 'slow', name: 'wait', input: { id: 'slow' } }] }, { text: 'never' }]);
    const agent = makeAgent(model, {}, { tools: [tool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const controller = new AbortController();
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'go' }] }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'tool-call-update' && event.status === 'in_progress') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
    expect(events.some((event) => event.type === 'tool-call-update' && event.cancelled)).toBe(false);
    expect(model.calls).toHaveLength(1);
  });
});
