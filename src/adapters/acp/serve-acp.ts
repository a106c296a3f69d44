import * as acp from '@agentclientprotocol/sdk';
import type { Agent, SessionInfo, SessionMode } from '../../agent/agent.js';
import type { AgentOutput } from '../../contracts/agent-output.js';
import { LOCAL_PRINCIPAL, ownedSessions } from '../../agent/owned-sessions.js';
import { createLocalRuntime } from '../../tools/local-runtime.js';
import { acpSettings, type AcpAgentSettings } from './acp-agent-settings.js';
import { createAcpClientRuntime } from './acp-client-runtime.js';
import { toAcpRequestError } from './to-acp-request-error.js';
import { fromAcpMcpServers } from './acp-prompt.js';
import { replayUpdates } from './acp-replay.js';
import { checkedCwd, checkedPrompt, negotiateProtocolVersion } from './acp-request-checks.js';
import { toSessionUpdate, type UpdateContext } from './acp-session-update.js';
import { decodeListCursor, encodeListCursor } from './session-list-cursor.js';
import { MODES, sessionConfigOptions, setSessionConfigOption } from './acp-session-config-options.js';
import { authenticate, authMethods, authRequired, missingCredentials } from './acp-auth-methods.js';
import { sessionInfoUpdate, usageUpdate } from './acp-session-info.js';
import { checkAdditionalDirectories } from './acp-additional-directories.js';
import { acpSessionEnd } from './acp-session-end.js';

const LIST_PAGE_SIZE = 50;

export interface ServeAcpOptions {
  name?: string;
  version?: string;
  /** Where protocol-level diagnostics go (stderr in the CLI). Never stdout. */
  log?: (message: string) => void;
  /** Told about refused messages (too large, too deep, malformed); stderr at warn level in the CLI. */
  warn?: (message: string) => void;
  /** Limits on one incoming message; default `adapters.acp.maxMessageBytes`/`maxJsonDepth` of the agent's config. */
  maxMessageBytes?: number;
  maxJsonDepth?: number;
  /** Who is calling (from the network auth); stdio is the local user. Other principals' sessions do not exist for it. */
  principal?: string;
  /** What ACP tells clients of the model(s) and the layer client commands run under; default: the default config's. */
  settings?: AcpAgentSettings;
}

/**
 * Serves one ACP connection (stdio, or one HTTP/WebSocket client) over the agent.
 * The SDK validates params and answers unknown methods; this maps ACP onto the core.
 */
export function serveAcp(agent: Agent, stream: acp.Stream, options: ServeAcpOptions = {}): acp.AgentConnection {
  const settings = acpSettings(options.settings);
  let clientCapabilities: acp.ClientCapabilities | undefined;
  /** Sessions this connection opened, and the controller and completion of each running prompt. */
  const sessions = new Map<string, { cwd: string; prompts: Map<AbortController, Promise<unknown>> }>();
  let connection: acp.AgentConnection | undefined;
  const owned = ownedSessions(agent.sessions, options.principal ?? LOCAL_PRINCIPAL);
  /** `logout` on this connection: new sessions and prompts need `authenticate` again. */
  let loggedOut = false;

  /** Whether the client advertised `session.<name>` (an object, or `null`/absent when not). */
  const clientSession = (name: 'notices' | 'compaction'): boolean =>
    Boolean((clientCapabilities?.session as Record<string, unknown> | null | undefined)?.[name]);
  const updateContext = (cwd: string, replay: boolean): UpdateContext => ({
    cwd,
    replay,
    notices: clientSession('notices'),
    compaction: clientSession('compaction'),
  });
  const openSession = (info: SessionInfo) => {
    const session = sessions.get(info.sessionId) ?? { cwd: info.cwd, prompts: new Map<AbortController, Promise<unknown>>() };
    sessions.set(info.sessionId, session);
    return session;
  };
  /** session/close and session/delete: cancel the session's turns and wait until they answered, so no update follows. */
  const stopSession = async (sessionId: string) => {
    const session = sessions.get(sessionId);
    sessions.delete(sessionId);
    if (!session) return;
    for (const controller of session.prompts.keys()) controller.abort();
    await Promise.allSettled(session.prompts.values());
  };
  const configOptionsUpdate = async (client: acp.AgentContext, sessionId: string) => {
    const info = await agent.sessions.get(sessionId);
    if (info && sessions.has(sessionId)) await sendUpdate(client, sessionId, { sessionUpdate: 'config_option_update', configOptions: sessionConfigOptions(settings, info) });
  };

  const modeState = (mode: SessionMode): acp.SessionModeState => ({ currentModeId: mode, availableModes: [...MODES] });

  const sendUpdate = async (client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate) => {
    await client.notify('session/update', { sessionId, update });
  };

  // Events outside a turn (MCP server failures, slash commands, mode changes) for this connection's sessions.
  const unsubscribe = agent.subscribe((event) => {
    const session = sessions.get(event.sessionId);
    if (!session || !connection) return;
    const update = toSessionUpdate(event, updateContext(session.cwd, false));
    if (update) void sendUpdate(connection.client, event.sessionId, update).catch(() => undefined);
    // The mode is also a config option: keep the client's copy of both in step.
    if (event.type === 'mode-change') void configOptionsUpdate(connection.client, event.sessionId).catch(() => undefined);
  });

  /** Stores the session's additional roots when they changed (an unchanged load is not activity). */
  const withDirectories = async (info: SessionInfo, additionalDirectories: string[]): Promise<SessionInfo> =>
    JSON.stringify(info.options?.additionalDirectories ?? []) === JSON.stringify(additionalDirectories)
      ? info
      : agent.sessions.setOptions(info.sessionId, { additionalDirectories });

  const requireSession = async (sessionId: string, cwd?: string): Promise<SessionInfo> => {
    const info = await owned.get(sessionId, cwd);
    if (!info) throw acp.RequestError.sessionNotFound(sessionId);
    return info;
  };

  const sessionEnd = acpSessionEnd({ owned, requireSession, stopSession });

  const app = acp
    .agent({ name: options.name ?? 'plaited-agent' })
    .onRequest('initialize', ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      const capabilities = agent.capabilities();
      return {
        protocolVersion: negotiateProtocolVersion(params.protocolVersion),
        agentCapabilities: {
          loadSession: capabilities.loadSession,
          promptCapabilities: capabilities.prompt,
          mcpCapabilities: capabilities.mcp,
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
          // Logout means something only where there is a login.
          ...(authMethods(settings).length > 0 ? { auth: { logout: {} } } : {}),
        },
        agentInfo: { name: 'plaited-agent', title: 'Plaited Agent', version: options.version ?? '0.0.0' },
        authMethods: authMethods(settings),
      };
    })
    .onRequest('authenticate', ({ params }) => {
      authenticate(settings, params.methodId);
      loggedOut = false;
      return {};
    })
    .onRequest('logout', () => {
      if (authMethods(settings).length === 0) throw acp.RequestError.methodNotFound('logout');
      loggedOut = true;
      return {};
    })
    .onRequest('session/new', async ({ params }) => {
      const cwd = await checkedCwd(params.cwd);
      // The spec's answer when credentials are missing, instead of a failure at the first prompt.
      if (loggedOut || missingCredentials(settings)) throw authRequired(settings);
      const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, cwd);
      const info = await owned.create({
        cwd,
        mcpServers: fromAcpMcpServers(params.mcpServers ?? []),
        ...(additionalDirectories.length > 0 ? { options: { additionalDirectories } } : {}),
      });
      openSession(info);
      return { sessionId: info.sessionId, modes: modeState(info.mode), configOptions: sessionConfigOptions(settings, info) };
    })
    .onRequest('session/resume', async ({ params }) => {
      const cwd = await checkedCwd(params.cwd);
      const found = await requireSession(params.sessionId, cwd);
      if (found.cwd !== cwd) throw acp.RequestError.invalidParams({ cwd: params.cwd }, `cwd must be the session's cwd (${found.cwd})`);
      // The request's list is the session's whole list from now on (none when omitted).
      const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, found.cwd);
      await withDirectories(found, additionalDirectories);
      // Live again (its MCP servers reconnect), with nothing replayed.
      const info = await agent.sessions.activate(found.sessionId, found.cwd).catch((error: unknown) => {
        throw toAcpRequestError(error, found.sessionId);
      });
      openSession(info);
      return { modes: modeState(info.mode), configOptions: sessionConfigOptions(settings, info) };
    })
    .onRequest('session/close', sessionEnd.close)
    .onRequest('session/delete', sessionEnd.delete)
    .onRequest('session/set_config_option', async ({ params }) => {
      const info = await requireSession(params.sessionId);
      const updated = await setSessionConfigOption(agent, settings, info, params.configId, params.value);
      return { configOptions: sessionConfigOptions(settings, updated.info) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const found = await requireSession(params.sessionId, await checkedCwd(params.cwd));
      const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, found.cwd);
      const info = await withDirectories(found, additionalDirectories);
      openSession(info);
      const history = await owned.history(info.sessionId, info.cwd).catch((error: unknown) => {
        throw toAcpRequestError(error, info.sessionId);
      });
      for (const update of replayUpdates(history, updateContext(info.cwd, true))) await sendUpdate(client, info.sessionId, update);
      return { modes: modeState(info.mode), configOptions: sessionConfigOptions(settings, info) };
    })
    .onRequest('session/list', async ({ params }) => {
      const start = decodeListCursor(params.cursor);
      const all = await owned.list(params.cwd != null ? { cwd: await checkedCwd(params.cwd) } : {});
      const page = all.slice(start, start + LIST_PAGE_SIZE);
      return {
        sessions: page.map((info) => ({
          sessionId: info.sessionId,
          cwd: info.cwd,
          title: info.title,
          updatedAt: info.updatedAt,
          ...(info.options?.additionalDirectories?.length ? { additionalDirectories: info.options.additionalDirectories } : {}),
        })),
        ...(start + LIST_PAGE_SIZE < all.length ? { nextCursor: encodeListCursor(start + LIST_PAGE_SIZE) } : {}),
      };
    })
    .onRequest('session/set_mode', async ({ params }) => {
      const mode = MODES.find((candidate) => candidate.id === params.modeId);
      if (!mode) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode; available: ${MODES.map((m) => m.id).join(', ')}`);
      await requireSession(params.sessionId);
      await owned.setMode(params.sessionId, mode.id);
      return {};
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      if (loggedOut) throw authRequired(settings);
      const prompt = checkedPrompt(params.prompt);
      const info = await requireSession(params.sessionId);
      const session = openSession(info);
      const controller = new AbortController();
      let finished!: () => void;
      session.prompts.set(controller, new Promise<void>((resolve) => (finished = resolve)));
      // The read-only layer for commands outside the sandbox (a sandbox wraps this runtime and turns it off).
      const layer = settings.commandLayer();
      const runtime = createAcpClientRuntime({
        client,
        sessionId: info.sessionId,
        capabilities: clientCapabilities,
        local: createLocalRuntime(info.cwd, { layer, roots: info.options?.additionalDirectories ?? [] }),
        layer,
      });
      const context = updateContext(info.cwd, false);
      let stopReason: acp.StopReason = 'end_turn';
      try {
        const events = agent.process(
          { sessionId: info.sessionId, prompt },
          { signal: controller.signal, runtime },
        );
        for await (const event of events) {
          if (event.type === 'permission-request') {
            // Not awaited: the turn keeps streaming, so a steering prompt can supersede the question.
            void askClient(client, event, controller.signal);
            continue;
          }
          if (event.type === 'turn-end') {
            stopReason = event.stopReason;
            continue;
          }
          if (event.type === 'error') {
            if (event.error.code === 'invalid_input') throw acp.RequestError.invalidParams({ code: event.error.code }, event.error.message);
            throw acp.RequestError.internalError({ code: event.error.code }, event.error.message);
          }
          if (event.type === 'usage') {
            await sendUpdate(client, info.sessionId, usageUpdate(settings, event));
            continue;
          }
          const update = toSessionUpdate(event, context);
          if (update) await sendUpdate(client, info.sessionId, update);
        }
        // Title (set from the first prompt) and last activity, once the turn is done.
        const after = await agent.sessions.get(info.sessionId);
        if (after) await sendUpdate(client, info.sessionId, sessionInfoUpdate(after));
      } finally {
        session.prompts.delete(controller);
        finished();
      }
      // The spec: a cancelled turn answers `cancelled`, even if the model ended on its own meanwhile.
      return { stopReason: controller.signal.aborted ? 'cancelled' : stopReason };
    })
    .onNotification('session/cancel', ({ params }) => {
      for (const controller of sessions.get(params.sessionId)?.prompts.keys() ?? []) controller.abort();
    });

  connection = app.connect(stream);
  void connection.closed.finally(() => {
    unsubscribe();
    for (const session of sessions.values()) for (const controller of session.prompts.keys()) controller.abort();
  });
  return connection;
}

/**
 * Asks the client and answers the agent's question; a failed request counts as a rejection.
 * On cancel the core stops waiting by itself, and the spec has the client answer `cancelled`.
 */
async function askClient(
  client: acp.AgentContext,
  event: Extract<AgentOutput, { type: 'permission-request' }>,
  signal: AbortSignal,
): Promise<void> {
  try {
    const params: acp.RequestPermissionRequest = {
      sessionId: event.sessionId,
      toolCall: { toolCallId: event.toolCallId, title: event.title, kind: event.kind, status: 'pending', rawInput: event.input },
      options: event.options,
    };
    // When the question stops mattering (cancel, or a steering prompt superseded the call), the client is told with $/cancel_request.
    const response = await client.request('session/request_permission', params, event.signal ? { cancellationSignal: event.signal } : undefined);
    event.respond(response.outcome.outcome === 'selected' ? { outcome: 'selected', optionId: response.outcome.optionId } : { outcome: 'cancelled' });
  } catch {
    event.respond(signal.aborted ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: 'reject-once' });
  }
}
