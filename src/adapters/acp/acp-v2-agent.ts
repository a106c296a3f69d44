import { randomUUID } from 'node:crypto';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { Agent, SessionInfo } from '../../agent/agent.js';
import type { AgentOutput, ContentPart } from '../../contracts/agent-output.js';
import { LOCAL_PRINCIPAL, ownedSessions } from '../../agent/owned-sessions.js';
import { checkedCwd, checkedPrompt } from './acp-request-checks.js';
import { decodeListCursor, encodeListCursor } from './session-list-cursor.js';
import { toAcpRequestError } from './to-acp-request-error.js';
import { toContentBlock } from './acp-session-update.js';
import { sessionConfigOptions, setSessionConfigOption } from './acp-session-config-options.js';
import { authenticate, authMethods, authRequired, missingCredentials } from './acp-auth-methods.js';
import { sessionInfoUpdate, usageUpdate } from './acp-session-info.js';
import { checkAdditionalDirectories } from './acp-additional-directories.js';
import { fromV2McpServers, toV2ConfigOptions, toV2Update } from './acp-v2-update.js';
import type { ServeAcpOptions } from './serve-acp.js';
import { acpSettings } from './acp-agent-settings.js';
import { ToolCallCancelError } from '../../agent/running-tool-calls.js';
import { isTerminalEvent, V2Terminals } from './acp-v2-terminals.js';
import { acpSessionEnd } from './acp-session-end.js';

const LIST_PAGE_SIZE = 50;

type ForegroundState = 'idle' | 'running' | 'requires_action';

interface V2Session {
  cwd: string;
  /** The last foreground state reported: repeated with each background snapshot. */
  state: ForegroundState;
  /** The running turn: its controller and its completion. */
  turn: { controller: AbortController; done: Promise<void> } | undefined;
}

/**
 * Serves one ACP v2 (draft, experimental) connection over the agent. In v2 a prompt is
 * accepted at once (`{ messageId }`) and the turn reports itself through `state_update`
 * (running → requires_action while a permission question is open → idle with the stop reason).
 * Tools run in the agent (v2 has no client file system or terminals).
 */
export function serveAcpV2(agent: Agent, stream: v2.Stream, options: ServeAcpOptions = {}): v2.AgentConnection {
  const settings = acpSettings(options.settings);
  // Another principal's sessions do not exist for this connection (as in v1).
  const owned = ownedSessions(agent.sessions, options.principal ?? LOCAL_PRINCIPAL);
  const sessions = new Map<string, V2Session>();
  let connection: v2.AgentConnection | undefined;
  /** `auth/logout` on this connection: sessions need `auth/login` again. */
  let loggedOut = false;
  const terminals = new V2Terminals();

  const send = (sessionId: string, update: v2.SessionUpdate) =>
    connection ? connection.client.notify('session/update', { sessionId, update }) : Promise.resolve();
  /** Every state update carries the background snapshot (a session that reports it must on each one). */
  const sendState = (sessionId: string, state: ForegroundState, extra: Record<string, unknown> = {}) => {
    const session = sessions.get(sessionId);
    if (session) session.state = state;
    return send(sessionId, { sessionUpdate: 'state_update', state, ...extra, background: terminals.background(sessionId) } as v2.SessionUpdate);
  };
  /** A terminal's updates, then (when the background list changed) a snapshot repeating the current state. */
  const sendTerminal = (event: Parameters<V2Terminals['handle']>[0]): Promise<unknown> => {
    const { updates, snapshot } = terminals.handle(event);
    // Sent without awaiting in between: they leave in this order.
    const sent = updates.map((update) => send(event.sessionId, update));
    if (snapshot) sent.push(sendState(event.sessionId, sessions.get(event.sessionId)?.state ?? 'idle'));
    return Promise.all(sent);
  };
  /** Agent events → v2 updates; a tool call's content keeps its terminal. */
  const v2Update = (event: AgentOutput, cwd: string, messageId: () => string): v2.SessionUpdate | undefined => {
    const update = toV2Update(event, cwd, messageId);
    if (update?.sessionUpdate === 'tool_call_update' && event.type === 'tool-call-update' && event.content) {
      const content = (update as { content?: v2.ToolCallContent[] }).content;
      return { ...update, content: terminals.toolContent(event.sessionId, event.toolCallId, content) } as v2.SessionUpdate;
    }
    return update;
  };
  const configOptions = (info: SessionInfo) => toV2ConfigOptions(sessionConfigOptions(settings, info));
  const requireSession = async (sessionId: string, cwd?: string): Promise<SessionInfo> => {
    const info = await owned.get(sessionId, cwd);
    if (!info) throw v2.RequestError.sessionNotFound(sessionId);
    return info;
  };
  const requireCredentials = () => {
    if (loggedOut || missingCredentials(settings)) throw authRequired(settings);
  };
  const openSession = (info: SessionInfo): V2Session => {
    const session = sessions.get(info.sessionId) ?? { cwd: info.cwd, state: 'idle' as const, turn: undefined };
    sessions.set(info.sessionId, session);
    return session;
  };
  const stopSession = async (sessionId: string) => {
    const turn = sessions.get(sessionId)?.turn;
    sessions.delete(sessionId);
    terminals.forget(sessionId);
    turn?.controller.abort();
    await turn?.done;
  };

  const unsubscribe = agent.subscribe((event) => {
    const session = sessions.get(event.sessionId);
    if (!session) return;
    if (event.type === 'mode-change') {
      void owned.get(event.sessionId).then((info) => info && send(event.sessionId, { sessionUpdate: 'config_option_update', configOptions: configOptions(info) })).catch(() => undefined);
      return;
    }
    // Background commands report here (their turn may be long over).
    if (isTerminalEvent(event)) {
      void sendTerminal(event).catch(() => undefined);
      return;
    }
    const update = v2Update(event, session.cwd, () => 'notice');
    if (update && update.sessionUpdate !== 'agent_message_chunk') void send(event.sessionId, update).catch(() => undefined);
  });

  const runTurn = async (info: SessionInfo, session: V2Session, prompt: ContentPart[], controller: AbortController) => {
    const sessionId = info.sessionId;
    let messageId = randomUUID();
    let lastWasText = false;
    const currentMessage = () => messageId;
    let stopReason: string = 'end_turn';
    let error: { code: number; message: string } | undefined;
    await sendState(sessionId, 'running');
    try {
      const events = agent.process({ sessionId, prompt }, { signal: controller.signal });
      for await (const event of events) {
        if (event.type === 'permission-request') {
          // Not awaited: the turn keeps streaming, so a cancel can supersede the question.
          void askClient(event, controller.signal);
          continue;
        }
        if (event.type === 'turn-end') {
          stopReason = event.stopReason;
          continue;
        }
        if (event.type === 'error') {
          stopReason = 'error';
          error = { code: -32603, message: event.error.message };
          continue;
        }
        if (isTerminalEvent(event)) {
          await sendTerminal(event);
          continue;
        }
        if (event.type === 'usage') {
          await send(sessionId, usageUpdate(settings, event) as v2.SessionUpdate);
          continue;
        }
        const isText = event.type === 'text-delta';
        // A new message after anything that is not text (a tool call between two answers).
        if (isText && !lastWasText) messageId = randomUUID();
        lastWasText = isText;
        const update = v2Update(event, session.cwd, currentMessage);
        if (update) await send(sessionId, update);
      }
      const after = await owned.get(sessionId);
      if (after) await send(sessionId, sessionInfoUpdate(after) as v2.SessionUpdate);
    } catch (thrown) {
      stopReason = 'error';
      error = { code: -32603, message: thrown instanceof Error ? thrown.message : String(thrown) };
    }
    if (controller.signal.aborted) stopReason = 'cancelled';
    await sendState(sessionId, 'idle', stopReason === 'error' ? { stopReason: 'error', error: error ?? null } : { stopReason });
  };

  const replay = async (info: SessionInfo) => {
    let messageId = randomUUID();
    let lastWasText = false;
    for (const event of await owned.history(info.sessionId, info.cwd)) {
      if (event.type === 'user-message') {
        lastWasText = false;
        await send(info.sessionId, { sessionUpdate: 'user_message', messageId: randomUUID(), content: event.content.map(toContentBlock) as v2.ContentBlock[] });
        continue;
      }
      const isText = event.type === 'text-delta';
      if (isText && !lastWasText) messageId = randomUUID();
      lastWasText = isText;
      // Notices were live-only; a replayed terminal shows its output (v2 has no client terminals anyway).
      // A replayed call runs no more: it is never offered for cancel.
      const stored = event.type === 'tool-call-update' ? { ...event, cancellable: false } : event;
      const update = event.type === 'notice' ? undefined : toV2Update(stored, info.cwd, () => messageId);
      if (update) await send(info.sessionId, update);
    }
  };

  /** Asks the client; `requires_action` while the question is open. A failed request is a rejection. */
  const askClient = async (event: Extract<AgentOutput, { type: 'permission-request' }>, signal: AbortSignal) => {
    const sessionId = event.sessionId;
    await sendState(sessionId, 'requires_action').catch(() => undefined);
    try {
      const response = await connection!.client.request(
        'session/request_permission',
        {
          sessionId,
          title: event.title,
          subject: { type: 'tool_call', toolCall: { toolCallId: event.toolCallId, title: event.title, kind: event.kind, status: 'pending', rawInput: event.input } },
          options: event.options,
        },
        event.signal ? { cancellationSignal: event.signal } : undefined,
      );
      const outcome = response.outcome as { outcome: string; optionId?: string };
      event.respond(outcome.outcome === 'selected' && outcome.optionId ? { outcome: 'selected', optionId: outcome.optionId } : { outcome: 'cancelled' });
    } catch {
      event.respond(signal.aborted ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: 'reject-once' });
    }
    if (!signal.aborted) await sendState(sessionId, 'running').catch(() => undefined);
  };

  const sessionEnd = acpSessionEnd({ owned, requireSession, stopSession });

  const app = v2
    .agent({ name: options.name ?? 'plaited-agent' })
    .onRequest('initialize', () => {
      const capabilities = agent.capabilities();
      return {
        protocolVersion: v2.PROTOCOL_VERSION,
        info: { name: 'plaited-agent', title: 'Plaited Agent', version: options.version ?? '0.0.0' },
        capabilities: {
          session: {
            prompt: {
              ...(capabilities.prompt.image ? { image: {} } : {}),
              ...(capabilities.prompt.audio ? { audio: {} } : {}),
              ...(capabilities.prompt.embeddedContext ? { embeddedContext: {} } : {}),
            },
            mcp: { stdio: {}, ...(capabilities.mcp.http ? { http: {} } : {}) },
            delete: {},
            additionalDirectories: {},
          },
          auth: {},
        },
        authMethods: authMethods(settings).map((method) => ({
          type: 'agent' as const,
          methodId: 'id' in method ? method.id : '',
          name: method.name,
          description: method.description ?? null,
        })),
      };
    })
    .onRequest('auth/login', ({ params }) => {
      authenticate(settings, params.methodId);
      loggedOut = false;
      return {};
    })
    .onRequest('auth/logout', () => {
      loggedOut = true;
      return {};
    })
    .onRequest('session/new', async ({ params }) => {
      const cwd = await checkedCwd(params.cwd);
      requireCredentials();
      const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, cwd);
      const info = await owned.create({
        cwd,
        mcpServers: fromV2McpServers(params.mcpServers),
        ...(additionalDirectories.length > 0 ? { options: { additionalDirectories } } : {}),
      });
      openSession(info);
      return { sessionId: info.sessionId, configOptions: configOptions(info) };
    })
    .onRequest('session/list', async ({ params }) => {
      const start = decodeListCursor(params.cursor);
      const all = await owned.list(params.cwd != null ? { cwd: await checkedCwd(params.cwd) } : {});
      const page = all.slice(start, start + LIST_PAGE_SIZE);
      return {
        sessions: page.map((info) => ({ sessionId: info.sessionId, cwd: info.cwd, title: info.title, updatedAt: info.updatedAt })),
        ...(start + LIST_PAGE_SIZE < all.length ? { nextCursor: encodeListCursor(start + LIST_PAGE_SIZE) } : {}),
      };
    })
    .onRequest('session/resume', async ({ params }) => {
      const cwd = await checkedCwd(params.cwd);
      const found = await requireSession(params.sessionId, cwd);
      if (found.cwd !== cwd) throw v2.RequestError.invalidParams({ cwd: params.cwd }, `cwd must be the session's cwd (${found.cwd})`);
      const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, found.cwd);
      if (JSON.stringify(found.options?.additionalDirectories ?? []) !== JSON.stringify(additionalDirectories)) {
        await owned.setOptions(found.sessionId, { additionalDirectories });
      }
      const info = await owned.activate(found.sessionId, found.cwd).catch((error: unknown) => {
        throw toAcpRequestError(error, found.sessionId);
      });
      const session = openSession(info);
      // `replayFrom: start`: the stored history first, as the draft's messages and upserts.
      if (params.replayFrom?.type === 'start') await replay(info);
      // Background commands still running (maybe started over another connection) are announced
      // before the snapshot lists them; their tool call is not re-sent without a replay.
      for (const start of agent.backgroundWork(info.sessionId)) {
        const { toolCallId: _toolCallId, ...announce } = start;
        for (const update of terminals.handle(announce).updates) await send(info.sessionId, update);
      }
      // The draft: a current-state snapshot after any replay and before the response.
      await sendState(info.sessionId, session.turn ? session.state : 'idle');
      return { configOptions: configOptions(info) };
    })
    .onRequest('session/close', sessionEnd.close)
    .onRequest('session/delete', sessionEnd.delete)
    .onRequest('session/set_config_option', async ({ params }) => {
      const info = await requireSession(params.sessionId);
      const updated = await setSessionConfigOption(agent, settings, info, params.configId, params.value as string | boolean);
      return { configOptions: configOptions(updated.info) };
    })
    .onRequest('session/prompt', async ({ params }) => {
      requireCredentials();
      // Checked before the answer: a bad block is -32602 for this prompt and is never stored.
      const prompt = checkedPrompt(params.prompt as never);
      const info = await requireSession(params.sessionId);
      const session = openSession(info);
      const messageId = randomUUID();
      const controller = new AbortController();
      // The previous turn finishes first: the core queues turns of one session anyway.
      const previous = session.turn?.done ?? Promise.resolve();
      const done = previous.then(() => runTurn(info, session, prompt, controller)).finally(() => {
        if (session.turn?.controller === controller) session.turn = undefined;
      });
      session.turn = { controller, done };
      void done.catch((error: unknown) => options.log?.(`ACP v2 turn failed: ${String(error)}`));
      return { messageId };
    })
    .onRequest('tool_call/cancel', async ({ params }) => {
      // Another principal's session is as unknown as a call that never ran: -32602 either way.
      if (!(await owned.get(params.sessionId))) throw v2.RequestError.invalidParams({ sessionId: params.sessionId }, `Unknown session ${params.sessionId}`);
      try {
        // Accepted once aborted; the turn confirms with the call's final `tool_call_update`.
        agent.cancelToolCall(params.sessionId, params.toolCallId);
      } catch (error) {
        if (ToolCallCancelError.isInstance(error)) throw v2.RequestError.invalidParams({ toolCallId: params.toolCallId }, error.message);
        throw error;
      }
      return {};
    })
    .onRequest('terminal/cancel', async ({ params }) => {
      if (!(await owned.get(params.sessionId))) throw v2.RequestError.invalidParams({ sessionId: params.sessionId }, `Unknown session ${params.sessionId}`);
      // Accepted once the stop is sent; the exit follows as a terminal_update with exitStatus.
      terminals.cancel(params.sessionId, params.terminalId);
      return {};
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.turn?.controller.abort();
    });

  connection = app.connect(stream);
  void connection.closed.finally(() => {
    unsubscribe();
    for (const session of sessions.values()) session.turn?.controller.abort();
  });
  return connection;
}
