import { randomUUID } from 'node:crypto';
import { acpSettings } from './acp-agent-settings.js';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { Agent, AgentCapabilities } from '../../agent/agent.js';
import { checkedPrompt } from './acp-request-checks.js';
import { fromV2McpServers } from './acp-v2-update.js';
import type { ServeAcpOptions } from './serve-acp-options.js';
import { ToolCallCancelError } from '../../agent/running-tool-calls.js';
import { AcpSessionHandlers } from './acp-session-handlers.js';
import { AcpV2Updates } from './acp-v2-updates.js';
import { forkSessionRequest } from './fork-session-request.js';
import { disableProviderRequest, listProvidersRequest, setProviderRequest } from './provider-requests.js';
import { fromAcpMcpServers } from './acp-prompt.js';
import type { McpServer } from '@agentclientprotocol/sdk';
import { agentVersion } from '../agent-version.js';

/**
 * Serves one ACP v2 (draft, experimental) connection over the agent: a thin translator between
 * the draft's wire shapes and the version-neutral `AcpSessionHandlers`, with the draft's own
 * turn state, message ids and terminals in `AcpV2Updates`. In v2 a prompt is accepted at once
 * (`{ messageId }`) and the turn reports itself through `state_update`. Tools run in the agent
 * (v2 has no client file system or terminals).
 */
export function serveAcpV2(agent: Agent, stream: v2.Stream, options: ServeAcpOptions = {}): v2.AgentConnection {
  let connection: v2.AgentConnection | undefined;
  const updates: AcpV2Updates = new AcpV2Updates(agent, () => handlers, () => connection?.client);
  // Another principal's sessions do not exist for this connection (as in v1).
  const handlers = new AcpSessionHandlers(agent, acpSettings(options.acpSettings), options.principal, (sessionId) => updates.forget(sessionId));
  const unsubscribe = handlers.subscribe((event, cwd) => updates.onAgentEvent(event, cwd));
  const app = v2
    .agent({ name: options.name ?? 'plaited-agent' })
    .onRequest('initialize', () => initialize(handlers.initialize(), options, handlers.providers.available()))
    .onRequest('auth/login', ({ params }) => (handlers.authenticate(params.methodId), {}))
    .onRequest('auth/logout', () => (handlers.logout(), {}))
    .onRequest('session/new', async ({ params }) => {
      const info = await handlers.newSession(params, () => fromV2McpServers(params.mcpServers));
      return { sessionId: info.sessionId, configOptions: updates.configOptions(info) };
    })
    .onRequest('session/list', async ({ params }) => {
      const { sessions, nextCursor } = await handlers.list(params);
      return {
        sessions: sessions.map((info) => ({ sessionId: info.sessionId, cwd: info.cwd, title: info.title, updatedAt: info.updatedAt })),
        ...(nextCursor ? { nextCursor } : {}),
      };
    })
    .onRequest('session/resume', async ({ params }) => {
      const info = await handlers.resume(params, params.mcpServers ? () => fromAcpMcpServers((params.mcpServers ?? []) as McpServer[]) : undefined);
      if (params.replayFrom?.type === 'start') await updates.replay(info);
      await updates.announceState(info);
      return { configOptions: updates.configOptions(info) };
    })
    // In the draft's unstable schema (`/experimental/v2/unstable`), as in unstable v1: served beside the draft.
    .onRequest('session/fork', forkSessionRequest, async ({ params }) => {
      const info = await handlers.fork(params, () => fromAcpMcpServers(params.mcpServers as McpServer[]));
      return { sessionId: info.sessionId, configOptions: updates.configOptions(info) };
    })
    // Also in the draft's unstable schema, with the same shapes as unstable v1's.
    .onRequest('providers/list', listProvidersRequest, () => handlers.providers.list())
    .onRequest('providers/set', setProviderRequest, ({ params }) => (handlers.providers.set(params), {}))
    .onRequest('providers/disable', disableProviderRequest, ({ params }) => (handlers.providers.disable(params.providerId), {}))
    .onRequest('session/close', (request) => handlers.end.close(request))
    .onRequest('session/delete', (request) => handlers.end.delete(request))
    .onRequest('session/set_config_option', async ({ params }) => ({
      configOptions: updates.configOptions(await handlers.setConfigOption(params.sessionId, params.configId, params.value as string | boolean)),
    }))
    .onRequest('session/prompt', async ({ params }) => {
      handlers.requireCredentials();
      // Checked before the answer: a bad block is -32602 for this prompt and is never stored.
      const prompt = checkedPrompt(params.prompt as never);
      const info = await handlers.require(params.sessionId);
      // After the session's previous turn: the core queues turns of one session anyway.
      // The message's id: echoed on its `user_message` during the turn, stored, and kept by a replay.
      const messageId = randomUUID();
      const done = handlers.queueTurn(info, (controller) => updates.runTurn(info, prompt, controller, messageId));
      void done.catch((error: unknown) => options.log?.(`ACP v2 turn failed: ${String(error)}`));
      return { messageId };
    })
    .onRequest('tool_call/cancel', async ({ params }) => {
      await requireOwned(handlers, params.sessionId);
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
      await requireOwned(handlers, params.sessionId);
      // Accepted once the stop is sent; the exit follows as a terminal_update with exitStatus.
      updates.terminals.cancel(params.sessionId, params.terminalId);
      return {};
    })
    .onNotification('session/cancel', ({ params }) => handlers.cancel(params.sessionId));

  connection = app.connect(stream);
  void connection.closed.finally(() => {
    unsubscribe();
    handlers.closeAll();
  });
  return connection;
}

/** The draft's `initialize` answer. */
function initialize(init: ReturnType<AcpSessionHandlers['initialize']>, options: ServeAcpOptions, providers: boolean) {
  return {
    protocolVersion: v2.PROTOCOL_VERSION,
    info: { name: 'plaited-agent', title: 'Plaited Agent', version: agentVersion(options.version) },
    // `providers` (unstable): only when the configured model can be routed.
    capabilities: { session: sessionCapabilities(init.capabilities), auth: {}, ...(providers ? { providers: {} } : {}) },
    authMethods: init.authMethods.map((method) => ({
      type: 'agent' as const,
      methodId: 'id' in method ? method.id : '',
      name: method.name,
      description: method.description ?? null,
    })),
  };
}

function sessionCapabilities(capabilities: AgentCapabilities) {
  return {
    prompt: {
      ...(capabilities.prompt.image ? { image: {} } : {}),
      ...(capabilities.prompt.audio ? { audio: {} } : {}),
      ...(capabilities.prompt.embeddedContext ? { embeddedContext: {} } : {}),
    },
    mcp: { stdio: {}, ...(capabilities.mcp.http ? { http: {} } : {}) },
    delete: {},
    additionalDirectories: {},
    fork: {},
  };
}

/** Another principal's session is as unknown as a call that never ran: -32602 either way. */
async function requireOwned(handlers: AcpSessionHandlers, sessionId: string): Promise<void> {
  if (!(await handlers.owned.get(sessionId))) throw v2.RequestError.invalidParams({ sessionId }, `Unknown session ${sessionId}`);
}
