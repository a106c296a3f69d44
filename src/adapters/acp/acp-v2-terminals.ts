import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { AgentOutput } from '../../contracts/agent-output.js';

type TerminalEvent = Extract<AgentOutput, { type: 'terminal-start' | 'terminal-output' | 'terminal-exit' }>;

interface TerminalState {
  toolCallId: string | undefined;
  background: boolean;
  running: boolean;
  cancel: () => void;
}

/** Exited terminals remembered per session (so a late `terminal/cancel` is told "already exited"). */
const EXITED_KEPT = 200;

export function isTerminalEvent(event: AgentOutput): event is TerminalEvent {
  return event.type === 'terminal-start' || event.type === 'terminal-output' || event.type === 'terminal-exit';
}

/**
 * The agent-owned terminals of one ACP v2 connection, per session: commands the agent runs show
 * as `terminal_update` (command, cwd, then `exitStatus`) and `terminal_output_chunk`s; the tool
 * call that started one references it; `cancel` is advertised while the process runs. Background
 * commands are the session's background work, listed as their terminal in state snapshots.
 */
export class V2Terminals {
  readonly #sessions = new Map<string, Map<string, TerminalState>>();

  /** The updates for one terminal event; `snapshot` when the background list changed (send a state snapshot after them). */
  handle(event: TerminalEvent): { updates: v2.SessionUpdate[]; snapshot: boolean } {
    const terminals = this.#terminals(event.sessionId);
    const { terminalId } = event;
    switch (event.type) {
      case 'terminal-start': {
        terminals.set(terminalId, { toolCallId: event.toolCallId, background: Boolean(event.background), running: true, cancel: event.cancel });
        const updates: v2.SessionUpdate[] = [
          { sessionUpdate: 'terminal_update', terminalId, command: event.command, cwd: event.cwd, capabilities: { cancel: {} } },
        ];
        if (event.toolCallId) updates.push({ sessionUpdate: 'tool_call_update', toolCallId: event.toolCallId, content: [{ type: 'terminal', terminalId }] });
        return { updates, snapshot: Boolean(event.background) };
      }
      case 'terminal-output':
        if (!terminals.get(terminalId)?.running) return { updates: [], snapshot: false };
        return { updates: [{ sessionUpdate: 'terminal_output_chunk', terminalId, data: event.data }], snapshot: false };
      case 'terminal-exit': {
        const state = terminals.get(terminalId);
        if (!state?.running) return { updates: [], snapshot: false };
        state.running = false;
        this.#prune(terminals);
        // The exit is reported before the snapshot that no longer lists a background command.
        return {
          updates: [{ sessionUpdate: 'terminal_update', terminalId, exitStatus: { exitCode: event.exitCode, signal: event.signal }, capabilities: null }],
          snapshot: state.background,
        };
      }
    }
  }

  /** The tool call's content with its terminal first (only the terminal once the command exited: it holds the output). */
  toolContent(sessionId: string, toolCallId: string, content: v2.ToolCallContent[] | null | undefined): v2.ToolCallContent[] | null | undefined {
    for (const [terminalId, state] of this.#terminals(sessionId)) {
      if (state.toolCallId !== toolCallId) continue;
      const reference: v2.ToolCallContent = { type: 'terminal', terminalId };
      return state.running ? [reference, ...(content ?? [])] : [reference];
    }
    return content;
  }

  /** Stops a running terminal's process; -32602 when unknown or already exited. Its exit is reported when it happens. */
  cancel(sessionId: string, terminalId: string): void {
    const state = this.#sessions.get(sessionId)?.get(terminalId);
    if (!state) throw v2.RequestError.invalidParams({ terminalId }, `Unknown terminal ${terminalId}`);
    if (!state.running) throw v2.RequestError.invalidParams({ terminalId }, `Terminal ${terminalId} has already exited`);
    state.cancel();
  }

  /** The session's background work: running background commands, as their terminals. */
  background(sessionId: string): v2.BackgroundWork[] {
    return [...this.#terminals(sessionId)]
      .filter(([, state]) => state.background && state.running)
      .map(([terminalId]) => ({ type: 'terminal' as const, terminalId }));
  }

  forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  #terminals(sessionId: string): Map<string, TerminalState> {
    let terminals = this.#sessions.get(sessionId);
    if (!terminals) this.#sessions.set(sessionId, (terminals = new Map()));
    return terminals;
  }

  #prune(terminals: Map<string, TerminalState>): void {
    const exited = [...terminals].filter(([, state]) => !state.running);
    for (const [terminalId] of exited.slice(0, Math.max(0, exited.length - EXITED_KEPT))) terminals.delete(terminalId);
  }
}
