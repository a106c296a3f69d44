import type * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { acpTurnError } from './acp-turn-error.js';
import type { Agent, SessionInfo } from '../../agent/agent.js';
import type { AgentOutput, ContentPart } from '../../contracts/agent-output.js';
import { toContentBlock } from './acp-session-update.js';
import { sessionInfoUpdate, usageUpdate } from './acp-session-info.js';
import { toV2ConfigOptions, toV2PreviewContent, toV2Update } from './acp-v2-update.js';
import { isTerminalEvent, V2Terminals } from './acp-v2-terminals.js';
import type { AcpSessionHandlers, TurnOutcome, TurnSink } from './acp-session-handlers.js';
import { bridgePermission, type PermissionRequestEvent } from './bridge-permission.js';
import { V2MessageIds } from './v2-message-ids.js';

type ForegroundState = 'idle' | 'running' | 'requires_action';

/**
 * What the v2 draft adds on top of the shared session handlers, for one connection: turn state
 * (`state_update`: running → requires_action while a permission question is open → idle with the
 * stop reason), message ids on chunks, agent-owned terminals, and the draft's replay.
 */
export class AcpV2Updates {
  readonly terminals = new V2Terminals();
  /** The last foreground state reported per live session: repeated with each background snapshot. */
  readonly #states = new Map<string, ForegroundState>();

  constructor(
    private readonly agent: Agent,
    private readonly handlers: () => AcpSessionHandlers,
    private readonly client: () => v2.AgentContext | undefined,
  ) {}

  /** A session stopped on this connection: its terminals and state are forgotten. */
  forget(sessionId: string): void {
    this.#states.delete(sessionId);
    this.terminals.forget(sessionId);
  }

  send(sessionId: string, update: v2.SessionUpdate): Promise<unknown> {
    return this.client()?.notify('session/update', { sessionId, update }) ?? Promise.resolve();
  }

  configOptions(info: SessionInfo): v2.SessionConfigOption[] {
    return toV2ConfigOptions(this.handlers().configOptions(info));
  }

  /** Every state update carries the background snapshot (a session that reports it must on each one). */
  sendState(sessionId: string, state: ForegroundState, extra: Record<string, unknown> = {}): Promise<unknown> {
    if (this.handlers().liveCwd(sessionId) !== undefined) this.#states.set(sessionId, state);
    return this.send(sessionId, { sessionUpdate: 'state_update', state, ...extra, background: this.terminals.background(sessionId) } as v2.SessionUpdate);
  }

  /** Events outside a turn: config options on a mode change, background terminals, notices (never chunks). */
  onAgentEvent(event: AgentOutput, cwd: string): void {
    if (event.type === 'mode-change') {
      void this.handlers()
        .owned.get(event.sessionId)
        .then((info) => info && this.send(event.sessionId, { sessionUpdate: 'config_option_update', configOptions: this.configOptions(info) }))
        .catch(() => undefined);
      return;
    }
    // Background commands report here (their turn may be long over).
    if (isTerminalEvent(event)) {
      void this.#sendTerminal(event).catch(() => undefined);
      return;
    }
    const update = this.#update(event, cwd, () => 'notice');
    if (update && update.sessionUpdate !== 'agent_message_chunk') void this.send(event.sessionId, update).catch(() => undefined);
  }

  /** One accepted prompt's turn, reported through `state_update`s (its answer, `{ messageId }`, went out already). */
  async runTurn(info: SessionInfo, prompt: ContentPart[], controller: AbortController, messageId?: string): Promise<void> {
    const sessionId = info.sessionId;
    await this.sendState(sessionId, 'running');
    let outcome: TurnOutcome;
    try {
      outcome = await this.handlers().runTurn(info, prompt, this.#turnSink(info), { controller, ...(messageId ? { messageId } : {}) });
    } catch (thrown) {
      outcome = { stopReason: 'error', error: { code: 'internal_error', message: thrown instanceof Error ? thrown.message : String(thrown) } };
    }
    const stopReason = controller.signal.aborted ? 'cancelled' : outcome.stopReason;
    const error = outcome.error ? acpTurnError(outcome.error) : null;
    await this.sendState(sessionId, 'idle', stopReason === 'error' ? { stopReason: 'error', error } : { stopReason });
  }

  /**
   * `replayFrom: start`: the stored history as the draft's messages and upserts. A user message
   * keeps the id its prompt answered; each agent message or thought opens with its whole-message
   * update (no content: the chunk that follows carries it) and its text as one chunk.
   */
  async replay(info: SessionInfo): Promise<void> {
    const ids = new V2MessageIds();
    let open: { kind: 'agent' | 'thought'; messageId: string; text: string } | undefined;
    const flush = async () => {
      if (!open) return;
      const chunk = open.kind === 'agent' ? 'agent_message_chunk' : 'agent_thought_chunk';
      await this.send(info.sessionId, { sessionUpdate: chunk, messageId: open.messageId, content: { type: 'text', text: open.text } } as v2.SessionUpdate);
      open = undefined;
    };
    for (const event of await this.handlers().history(info)) {
      const kind = chunkKind(event);
      if (kind && event.type !== 'user-message' && 'text' in event) {
        const { messageId, first } = ids.chunk(kind);
        if (first) {
          await flush();
          await this.send(info.sessionId, { sessionUpdate: kind === 'agent' ? 'agent_message' : 'agent_thought', messageId } as v2.SessionUpdate);
          open = { kind, messageId, text: '' };
        }
        open!.text += event.text;
        continue;
      }
      await flush();
      if (event.type === 'user-message') {
        await this.send(info.sessionId, userMessage(ids.user(event.messageId), event.content));
        continue;
      }
      ids.other();
      // Notices were live-only; a replayed terminal shows its output (v2 has no client terminals anyway).
      // A replayed call runs no more: it is never offered for cancel.
      const stored = event.type === 'tool-call-update' ? { ...event, cancellable: false } : event;
      const update = event.type === 'notice' ? undefined : toV2Update(stored, info.cwd, () => '');
      if (update) await this.send(info.sessionId, update);
    }
    await flush();
  }

  /**
   * After a resume: background commands still running (maybe started over another connection) are
   * announced before the snapshot lists them (their tool call is not re-sent without a replay), then
   * the draft's current-state snapshot, after any replay and before the response.
   */
  async announceState(info: SessionInfo): Promise<void> {
    for (const start of this.agent.backgroundWork(info.sessionId)) {
      const { toolCallId: _toolCallId, ...announce } = start;
      for (const update of this.terminals.handle(announce).updates) await this.send(info.sessionId, update);
    }
    await this.sendState(info.sessionId, this.handlers().running(info.sessionId) ? (this.#states.get(info.sessionId) ?? 'idle') : 'idle');
  }

  #turnSink(info: SessionInfo): TurnSink {
    const sessionId = info.sessionId;
    const ids = new V2MessageIds();
    return {
      ask: (event, signal) => void this.#ask(event, signal),
      update: async (event) => {
        if (isTerminalEvent(event)) return this.#sendTerminal(event);
        if (event.type === 'usage') return this.send(sessionId, usageUpdate(this.handlers().settings, event) as v2.SessionUpdate);
        // The prompt echoed with the id `session/prompt` answered (the draft asks for it during the live session).
        if (event.type === 'user-message') return this.send(sessionId, userMessage(ids.user(event.messageId), event.content));
        const kind = chunkKind(event);
        const messageId = kind ? ids.chunk(kind).messageId : (ids.other(), '');
        const update = this.#update(event, info.cwd, () => messageId);
        if (update) await this.send(sessionId, update);
      },
      finished: (after) => this.send(sessionId, sessionInfoUpdate(after) as v2.SessionUpdate),
    };
  }

  /** Asks the client (the draft's request shape); `requires_action` while the question is open. */
  async #ask(event: PermissionRequestEvent, signal: AbortSignal): Promise<void> {
    const sessionId = event.sessionId;
    await this.sendState(sessionId, 'requires_action').catch(() => undefined);
    const params = {
      sessionId,
      title: event.title,
      subject: {
        type: 'tool_call' as const,
        toolCall: {
          toolCallId: event.toolCallId,
          title: event.title,
          kind: event.kind,
          status: 'pending' as const,
          rawInput: event.input,
          ...(event.content ? { content: toV2PreviewContent(event.content) } : {}),
        },
      },
      options: event.options,
    };
    await bridgePermission(event, signal, async (requestOptions) => this.client()!.request('session/request_permission', params, requestOptions));
    if (!signal.aborted) await this.sendState(sessionId, 'running').catch(() => undefined);
  }

  /** A terminal's updates, then (when the background list changed) a snapshot repeating the current state. */
  #sendTerminal(event: Parameters<V2Terminals['handle']>[0]): Promise<unknown> {
    const { updates, snapshot } = this.terminals.handle(event);
    // Sent without awaiting in between: they leave in this order.
    const sent = updates.map((update) => this.send(event.sessionId, update));
    if (snapshot) sent.push(this.sendState(event.sessionId, this.#states.get(event.sessionId) ?? 'idle'));
    return Promise.all(sent);
  }

  /** Agent events → v2 updates; a tool call's content keeps its terminal. */
  #update(event: AgentOutput, cwd: string, messageId: () => string): v2.SessionUpdate | undefined {
    const update = toV2Update(event, cwd, messageId);
    if (update?.sessionUpdate === 'tool_call_update' && event.type === 'tool-call-update' && event.content) {
      const content = (update as { content?: v2.ToolCallContent[] }).content;
      return { ...update, content: this.terminals.toolContent(event.sessionId, event.toolCallId, content) } as v2.SessionUpdate;
    }
    return update;
  }
}

/** Agent text and thoughts stream as chunks of a message; everything else is not a chunk. */
function chunkKind(event: AgentOutput): 'agent' | 'thought' | undefined {
  return event.type === 'text-delta' ? 'agent' : event.type === 'thought-delta' ? 'thought' : undefined;
}

/** The draft's whole user message (an upsert keyed by its id). */
function userMessage(messageId: string, content: readonly ContentPart[]): v2.SessionUpdate {
  return { sessionUpdate: 'user_message', messageId, content: content.map(toContentBlock) as v2.ContentBlock[] };
}
