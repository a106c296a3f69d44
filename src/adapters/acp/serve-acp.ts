import * as acp from '@agentclientprotocol/sdk';
import type { Agent, SessionInfo } from '../../agent/agent.js';
import { acpTurnError, INVALID_PARAMS } from './acp-turn-error.js';
import type { AgentOutput } from '../../contracts/agent-output.js';
import { createLocalRuntime } from '../../tools/local-runtime.js';
import { acpSettings } from './acp-agent-settings.js';
import { createAcpClientRuntime } from './acp-client-runtime.js';
import { fromAcpMcpServers } from './acp-prompt.js';
import { replayUpdates } from './acp-replay.js';
import { checkedPrompt, negotiateProtocolVersion } from './acp-request-checks.js';
import { previewContent, toSessionUpdate, type UpdateContext } from './acp-session-update.js';
import { MODES } from './acp-session-config-options.js';
import { sessionInfoUpdate, usageUpdate } from './acp-session-info.js';
import { AcpSessionHandlers, type TurnSink } from './acp-session-handlers.js';
import { bridgePermission, type PermissionRequestEvent } from './bridge-permission.js';
import type { ServeAcpOptions } from './serve-acp-options.js';
import { forkSessionRequest } from './fork-session-request.js';
import { disableProviderRequest, listProvidersRequest, setProviderRequest } from './provider-requests.js';
import { agentVersion } from '../agent-version.js';

export type { ServeAcpOptions } from './serve-acp-options.js';

/** One v1 connection: the shared handlers plus what v1 alone keeps (the client's capabilities). */
interface V1Connection {
  agent: Agent;
  handlers: AcpSessionHandlers;
  options: ServeAcpOptions;
  clientCapabilities?: acp.ClientCapabilities;
}

/**
 * Serves one ACP v1 connection (stdio, or one HTTP/WebSocket client) over the agent: a thin
 * translator between v1's wire shapes and the version-neutral `AcpSessionHandlers`.
 * The SDK validates params and answers unknown methods.
 */
export function serveAcp(agent: Agent, stream: acp.Stream, options: ServeAcpOptions = {}): acp.AgentConnection {
  const v1: V1Connection = { agent, handlers: new AcpSessionHandlers(agent, acpSettings(options.acpSettings), options.principal), options };
  const { handlers } = v1;
  let connection: acp.AgentConnection | undefined;
  const unsubscribe = handlers.subscribe((event, cwd) => {
    if (connection) onAgentEvent(v1, connection.client, event, cwd);
  });
  const session = (info: SessionInfo) => ({ modes: modeState(info), configOptions: handlers.configOptions(info) });
  const app = acp
    .agent({ name: options.name ?? 'plaited-agent' })
    .onRequest('initialize', ({ params }) => initialize(v1, params))
    .onRequest('authenticate', ({ params }) => (handlers.authenticate(params.methodId), {}))
    .onRequest('logout', () => {
      if (handlers.authMethods().length === 0) throw acp.RequestError.methodNotFound('logout');
      return handlers.logout(), {};
    })
    .onRequest('session/new', async ({ params }) => {
      const info = await handlers.newSession(params, () => fromAcpMcpServers(params.mcpServers ?? []));
      return { sessionId: info.sessionId, ...session(info) };
    })
    .onRequest('session/resume', async ({ params }) =>
      session(await handlers.resume(params, params.mcpServers ? () => fromAcpMcpServers(params.mcpServers ?? []) : undefined)),
    )
    // Unstable v1 (`@agentclientprotocol/sdk/unstable`): served on the stable entry, parsed here (fork, providers/*).
    .onRequest('session/fork', forkSessionRequest, async ({ params }) => {
      const info = await handlers.fork(params, () => fromAcpMcpServers(params.mcpServers as acp.McpServer[]));
      return { sessionId: info.sessionId, ...session(info) };
    })
    .onRequest('providers/list', listProvidersRequest, () => handlers.providers.list())
    .onRequest('providers/set', setProviderRequest, ({ params }) => (handlers.providers.set(params), {}))
    .onRequest('providers/disable', disableProviderRequest, ({ params }) => (handlers.providers.disable(params.providerId), {}))
    .onRequest('session/close', (request) => handlers.end.close(request))
    .onRequest('session/delete', (request) => handlers.end.delete(request))
    .onRequest('session/set_config_option', async ({ params }) => ({
      configOptions: handlers.configOptions(await handlers.setConfigOption(params.sessionId, params.configId, params.value)),
    }))
    .onRequest('session/load', async ({ params, client }) => session(await load(v1, client, params)))
    .onRequest('session/list', async ({ params }) => {
      const { sessions, nextCursor } = await handlers.list(params);
      return { sessions: sessions.map(listEntry), ...(nextCursor ? { nextCursor } : {}) };
    })
    .onRequest('session/set_mode', async ({ params }) => (await handlers.setMode(params.sessionId, params.modeId), {}))
    .onRequest('session/prompt', ({ params, client }) => prompt(v1, client, params))
    .onNotification('session/cancel', ({ params }) => handlers.cancel(params.sessionId));

  connection = app.connect(stream);
  void connection.closed.finally(() => {
    unsubscribe();
    handlers.closeAll();
  });
  return connection;
}

function initialize(v1: V1Connection, params: acp.InitializeRequest): acp.InitializeResponse {
  v1.clientCapabilities = params.clientCapabilities;
  const { capabilities, authMethods } = v1.handlers.initialize();
  return {
    protocolVersion: negotiateProtocolVersion(params.protocolVersion),
    agentCapabilities: {
      loadSession: capabilities.loadSession,
      promptCapabilities: capabilities.prompt,
      mcpCapabilities: capabilities.mcp,
      // `fork` is unstable v1 (the stable schema has no such key; stable clients ignore it).
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {} } as acp.SessionCapabilities,
      // Unstable v1 too: advertised only when the configured model can be routed (an HTTP provider).
      ...(v1.handlers.providers.available() ? { providers: {} } : {}),
      // Logout means something only where there is a login.
      ...(authMethods.length > 0 ? { auth: { logout: {} } } : {}),
    },
    agentInfo: { name: 'plaited-agent', title: 'Plaited Agent', version: agentVersion(v1.options.version) },
    authMethods,
  };
}

/** `session/load`: the session opened, then its stored history replayed as updates before the answer. */
async function load(v1: V1Connection, client: acp.AgentContext, params: acp.LoadSessionRequest): Promise<SessionInfo> {
  const info = await v1.handlers.load(params, () => fromAcpMcpServers(params.mcpServers));
  const { history, live } = await v1.handlers.replay(info);
  const context = updateContext(v1, info.cwd, true);
  for (const update of replayUpdates(history, context)) await sendUpdate(client, info.sessionId, update);
  // A turn running elsewhere (another connection or replica): its later updates follow the answer.
  if (live) void followLive(client, info.sessionId, live, context);
  return info;
}

/** A followed turn's stored batches as updates (merged like a replay), until it ends or the client goes. */
async function followLive(client: acp.AgentContext, sessionId: string, live: AsyncIterable<AgentOutput[]>, context: UpdateContext): Promise<void> {
  try {
    for await (const batch of live) for (const update of replayUpdates(batch, context)) await sendUpdate(client, sessionId, update);
  } catch {
    // The client left, or the store stopped answering: the follow ends; the history stays loadable.
  }
}

/** `session/prompt`: the request lasts the turn and answers its stop reason. */
async function prompt(v1: V1Connection, client: acp.AgentContext, params: acp.PromptRequest): Promise<acp.PromptResponse> {
  const { handlers } = v1;
  // Before any await: a session/cancel right behind the prompt must reach its turn.
  const arrival = handlers.arrive(params.sessionId);
  try {
    return await promptArrived(v1, client, params, arrival.signal);
  } finally {
    arrival.settle();
  }
}

async function promptArrived(v1: V1Connection, client: acp.AgentContext, params: acp.PromptRequest, cancelled: AbortSignal): Promise<acp.PromptResponse> {
  const { handlers } = v1;
  handlers.requireLogin();
  const parts = checkedPrompt(params.prompt);
  const info = await handlers.require(params.sessionId);
  // The read-only layer for commands outside the sandbox (a sandbox wraps this runtime and turns it off).
  const layer = handlers.settings.commandLayer();
  const runtime = createAcpClientRuntime({
    client,
    sessionId: info.sessionId,
    capabilities: v1.clientCapabilities,
    local: createLocalRuntime(info.cwd, { layer, roots: info.options?.additionalDirectories ?? [] }),
    layer,
  });
  const outcome = await handlers.runTurn(info, parts, turnSink(v1, client, info), { runtime, cancelled });
  return { stopReason: outcome.stopReason as acp.StopReason };
}

/** A v1 turn's events as `session/update`s; an error event fails the prompt request. */
function turnSink(v1: V1Connection, client: acp.AgentContext, info: SessionInfo): TurnSink {
  const context = updateContext(v1, info.cwd, false);
  return {
    ask: (event, signal) => void askClient(client, event, signal),
    fail: (event) => {
      const { code, message, data } = acpTurnError(event.error);
      // The SDK's builders, for v1's "Invalid params: …" / "Internal error: …" messages.
      throw code === INVALID_PARAMS ? acp.RequestError.invalidParams(data, message) : acp.RequestError.internalError(data, message);
    },
    update: async (event) => {
      const update = event.type === 'usage' ? usageUpdate(v1.handlers.settings, event) : toSessionUpdate(event, context);
      if (update) await sendUpdate(client, info.sessionId, update);
    },
    finished: (after) => sendUpdate(client, info.sessionId, sessionInfoUpdate(after)),
  };
}

/** Events outside a turn; the mode is also a config option, so the client's copy of both stays in step. */
function onAgentEvent(v1: V1Connection, client: acp.AgentContext, event: AgentOutput, cwd: string): void {
  const update = toSessionUpdate(event, updateContext(v1, cwd, false));
  if (update) void sendUpdate(client, event.sessionId, update).catch(() => undefined);
  if (event.type !== 'mode-change') return;
  const configOptionsUpdate = async () => {
    const info = await v1.handlers.owned.get(event.sessionId);
    if (info && v1.handlers.liveCwd(event.sessionId) !== undefined) {
      await sendUpdate(client, event.sessionId, { sessionUpdate: 'config_option_update', configOptions: v1.handlers.configOptions(info) });
    }
  };
  void configOptionsUpdate().catch(() => undefined);
}

/** Asks the client (v1's request shape) and answers the agent's question. */
function askClient(client: acp.AgentContext, event: PermissionRequestEvent, signal: AbortSignal): Promise<void> {
  const params: acp.RequestPermissionRequest = {
    sessionId: event.sessionId,
    toolCall: {
      toolCallId: event.toolCallId,
      title: event.title,
      kind: event.kind,
      status: 'pending',
      rawInput: event.input,
      ...(event.content ? { content: previewContent(event.content) } : {}),
    },
    options: event.options,
  };
  return bridgePermission(event, signal, (requestOptions) => client.request('session/request_permission', params, requestOptions));
}

function updateContext(v1: V1Connection, cwd: string, replay: boolean): UpdateContext {
  /** Whether the client advertised `session.<name>` (an object, or `null`/absent when not). */
  const clientSession = (name: 'notices' | 'compaction'): boolean =>
    Boolean((v1.clientCapabilities?.session as Record<string, unknown> | null | undefined)?.[name]);
  return { cwd, replay, notices: clientSession('notices'), compaction: clientSession('compaction') };
}

function modeState(info: SessionInfo): acp.SessionModeState {
  return { currentModeId: info.mode, availableModes: [...MODES] };
}

function listEntry(info: SessionInfo): acp.SessionInfo {
  return {
    sessionId: info.sessionId,
    cwd: info.cwd,
    title: info.title,
    updatedAt: info.updatedAt,
    ...(info.options?.additionalDirectories?.length ? { additionalDirectories: info.options.additionalDirectories } : {}),
  };
}

function sendUpdate(client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate): Promise<void> {
  return client.notify('session/update', { sessionId, update });
}
