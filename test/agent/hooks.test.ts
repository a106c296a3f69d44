import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolCallHookEvent, ToolResultHookEvent, TurnEndHookEvent } from '../../src/contracts/agent-hooks.js';
import type { AgentExtension } from '../../src/agent/agent-extension.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from './agent-test-kit.js';

describe('config hooks', () => {
  it('rewrites bash arguments, denies rm -rf, and the first decision wins', async () => {
    const cwd = tempProject();
    const seen: string[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'bash', input: { command: 'echo original > out.txt' } },
          { name: 'bash', input: { command: 'rm -rf /tmp/not-really' } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = makeAgent(model, {
      tools: { allow: ['bash'] },
      hooks: {
        onToolCall: [
          (event: ToolCallHookEvent) => {
            seen.push(`first:${event.toolName}`);
            const command = (event.args as { command: string }).command;
            if (/rm\s+-rf/.test(command)) return { deny: 'rm -rf is not allowed here' };
            if (command.includes('original')) return { args: { command: 'echo rewritten > out.txt' } };
            return undefined;
          },
          // Never decides for calls the first hook decided: it would allow everything.
          (event: ToolCallHookEvent) => {
            seen.push(`second:${event.toolName}`);
            return { args: { command: 'echo second-hook > out.txt' } };
          },
        ],
      },
    });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'run things');
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8').trim()).toBe('rewritten');
    expect(seen).toEqual(['first:bash', 'first:bash']);
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt).toContain('Denied by a hook: rm -rf is not allowed here');
    expect(events.filter((event) => event.type === 'tool-call-update' && event.status === 'failed')).toHaveLength(1);
  });

  it('a hook that rewrites into invalid arguments fails the call; a throwing hook is a notice and decides nothing', async () => {
    const cwd = tempProject();
    const model = scriptedModel([
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }, { name: 'glob', input: { pattern: '*' } }] },
      { text: 'ok' },
    ]);
    const agent = makeAgent(model, {
      hooks: {
        onToolCall: (event: ToolCallHookEvent) => {
          if (event.toolName === 'read_file') return { args: { nope: true } };
          throw new Error('hook exploded');
        },
      },
    });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'go');
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('rewrote the arguments of \\"read_file\\" into invalid ones');
    const notice = events.find((event) => event.type === 'notice');
    expect(notice).toMatchObject({ level: 'warning' });
    expect(JSON.stringify(notice)).toContain('hook exploded');
    // The glob call still ran.
    expect(events.filter((event) => event.type === 'tool-call-update' && event.status === 'completed')).toHaveLength(1);
  });

  it('onToolResult sees the arguments that ran and the result; onTurnEnd sees the stop reason', async () => {
    const cwd = tempProject();
    const results: ToolResultHookEvent[] = [];
    const ends: TurnEndHookEvent[] = [];
    const model = scriptedModel([{ toolCalls: [{ name: 'write_file', input: { path: 'x.txt', content: 'model' } }] }, { text: 'written' }]);
    const agent = makeAgent(model, {
      agent: { defaultMode: 'accept-edits' },
      hooks: {
        onToolCall: () => ({ args: { path: 'y.txt', content: 'hooked' } }),
        onToolResult: (event: ToolResultHookEvent) => void results.push(event),
        onTurnEnd: (event: TurnEndHookEvent) => void ends.push(event),
      },
    });
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, 'write');
    expect(existsSync(join(cwd, 'x.txt'))).toBe(false);
    expect(readFileSync(join(cwd, 'y.txt'), 'utf8')).toBe('hooked');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ toolName: 'write_file', risk: 'write', source: 'local', args: { path: 'y.txt', content: 'hooked' } });
    expect(results[0]!.result.isError).toBeFalsy();
    expect(ends).toEqual([{ sessionId, cwd: expect.any(String), stopReason: 'end_turn' }]);
  });

  it('one hook system: an extension decides tool calls before the config hooks; a throwing one is a notice naming it', async () => {
    const cwd = tempProject();
    const order: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'model' } }, { name: 'glob', input: { pattern: '*' } }] },
      { text: 'done' },
    ]);
    const guard: AgentExtension = {
      name: 'guard',
      onToolCall: (_context, call) => {
        order.push(`guard:${call.toolName}`);
        if (call.toolName === 'glob') throw new Error('guard exploded');
        return { deny: 'no writes today' };
      },
      onToolResult: (_context, call) => void order.push(`guard-result:${call.toolName}:${call.risk}:${call.source}:${call.toolCallId !== ''}`),
      onTurnEnd: () => void order.push('guard-end'),
    };
    const agent = makeAgent(
      model,
      {
        agent: { defaultMode: 'accept-edits' },
        hooks: {
          onToolCall: (event: ToolCallHookEvent) => void order.push(`config:${event.toolName}`),
          onToolResult: (event: ToolResultHookEvent) => void order.push(`config-result:${event.toolName}`),
          onTurnEnd: () => void order.push('config-end'),
        },
      },
      { extensions: [guard] },
    );
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'write');
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('Denied by a hook: no writes today');
    // The guard decided write_file, so the config hook was not asked; its throw on glob decided nothing.
    // Both see every result (the denied call's too), the extension first, then both see the turn end.
    expect(order).toEqual([
      'guard:write_file',
      'guard:glob',
      'config:glob',
      'guard-result:write_file:write:local:true',
      'config-result:write_file',
      'guard-result:glob:read:local:true',
      'config-result:glob',
      'guard-end',
      'config-end',
    ]);
    const notices = events.filter((event) => event.type === 'notice').map((event) => JSON.stringify(event));
    expect(notices.some((notice) => notice.includes('guard (onToolCall) failed: guard exploded'))).toBe(true);
  });

  it('rejects a config whose hook is not a function, with its path', async () => {
    const { configSchema } = await import('../../src/config/schema.js');
    const parsed = configSchema.safeParse({ hooks: { onToolCall: 'rm -rf' } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues.map((issue) => issue.path))).toContain('onToolCall');
  });
});
