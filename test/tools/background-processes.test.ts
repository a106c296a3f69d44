import { describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { createBashTool } from '../../src/tools/bash-tool.js';
import { bashKillTool, bashOutputTool } from '../../src/tools/background-tools.js';
import { BackgroundProcesses } from '../../src/tools/background-processes.js';
import { createWorkspace, runTool, textOf, toolContext } from './tool-test-helpers.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';
import { waitFor } from '../helpers/wait-for.js';

const decoded = (events: AgentOutput[], terminalId: string) =>
  events.flatMap((event) => (event.type === 'terminal-output' && event.terminalId === terminalId ? [Buffer.from(event.data, 'base64').toString('utf8')] : [])).join('');

describe('bash: its own terminal', () => {
  it('announces the command, streams its output and reports the exit, in that order', async () => {
    const ws = await createWorkspace();
    try {
      const context = toolContext(ws.runtime);
      const result = await runTool(createBashTool(), { command: "printf 'a\\n'; sleep 0.2; printf 'b\\n'; exit 4" }, context);
      expect(textOf(result)).toContain('Exit code: 4');
      const [start, ...rest] = context.events;
      expect(start).toMatchObject({ type: 'terminal-start', toolCallId: 'call-1', cwd: ws.cwd, command: "printf 'a\\n'; sleep 0.2; printf 'b\\n'; exit 4" });
      const terminalId = (start as { terminalId: string }).terminalId;
      expect(decoded(context.events, terminalId)).toBe('a\nb\n');
      expect(rest.at(-1)).toEqual({ type: 'terminal-exit', sessionId: 'test-session', terminalId, exitCode: 4, signal: null });
    } finally {
      await ws.cleanup();
    }
  });

  it("the terminal's cancel kills the command; the result says the user stopped it", async () => {
    const ws = await createWorkspace();
    try {
      const context = toolContext(ws.runtime);
      const sleep = uniqueSleep();
      const emit = context.emit;
      context.emit = (event) => {
        emit(event);
        if (event.type === 'terminal-start') void waitFor(() => processesMatching(sleep).length > 0).then(() => event.cancel());
      };
      const result = await runTool(createBashTool(), { command: sleep }, context);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Command stopped by the user');
      expect(processesMatching(sleep)).toEqual([]);
      expect(context.events.at(-1)).toMatchObject({ type: 'terminal-exit', signal: 'SIGTERM' });
    } finally {
      await ws.cleanup();
    }
  });
});

describe('background commands', () => {
  it('start, read new output, list, kill; events go to the agent, not the turn', async () => {
    const ws = await createWorkspace();
    const published: AgentOutput[] = [];
    const background = new BackgroundProcesses({ publish: (event) => published.push(event), maxPerSession: 2 });
    try {
      const context = { ...toolContext(ws.runtime), background };
      const sleep = uniqueSleep();
      const started = await runTool(createBashTool(), { command: `echo hello; ${sleep}`, background: true }, context);
      const id = /as (bg-[0-9a-f]+)/.exec(textOf(started))?.[1];
      expect(id).toBeDefined();
      expect(context.events).toEqual([]);
      expect(published[0]).toMatchObject({ type: 'terminal-start', terminalId: id, background: true, toolCallId: 'call-1' });
      expect(processesMatching(sleep)).toHaveLength(1);

      expect(textOf(await runTool(bashOutputTool, {}, context))).toContain(`${id}: running`);
      // What it printed is in the start result or the first read (whichever came after it), then read once only.
      await waitFor(() => published.some((event) => event.type === 'terminal-output'));
      expect(textOf(started) + textOf(await runTool(bashOutputTool, { id }, context))).toContain('hello');
      expect(textOf(await runTool(bashOutputTool, { id }, context))).toBe('Status: running.\n(no new output)');
      // Another session cannot see or stop it.
      const stranger = { ...context, sessionId: 'other' };
      expect((await runTool(bashKillTool, { id }, stranger)).isError).toBe(true);

      // Bounded per session.
      await runTool(createBashTool(), { command: uniqueSleep(), background: true }, context);
      const refused = await runTool(createBashTool(), { command: 'true', background: true }, context);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('already runs 2 background commands');

      const killed = await runTool(bashKillTool, { id }, context);
      expect(textOf(killed)).toContain('Status: ended by SIGTERM');
      expect(processesMatching(sleep)).toEqual([]);
      expect(published.filter((event) => event.type === 'terminal-exit' && event.terminalId === id)).toHaveLength(1);
      // Read after its end: forgotten.
      expect((await runTool(bashOutputTool, { id }, context)).isError).toBe(true);
    } finally {
      await background.stopAll();
      await ws.cleanup();
    }
  });

  it('closing the session stops its commands; without a registry bash refuses background', async () => {
    const ws = await createWorkspace();
    const background = new BackgroundProcesses({ publish: () => undefined });
    try {
      const sleep = uniqueSleep();
      await runTool(createBashTool(), { command: sleep, background: true }, { ...toolContext(ws.runtime), background });
      expect(processesMatching(sleep)).toHaveLength(1);
      await background.stopSession('test-session');
      expect(processesMatching(sleep)).toEqual([]);
      expect(background.list('test-session')).toEqual([]);

      const refused = await runTool(createBashTool(), { command: 'true', background: true }, toolContext(ws.runtime));
      expect(refused.isError).toBe(true);
    } finally {
      await ws.cleanup();
    }
  });
});
