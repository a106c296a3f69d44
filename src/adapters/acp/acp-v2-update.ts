import { isAbsolute, resolve } from 'node:path';
import type * as v1 from '@agentclientprotocol/sdk';
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { AgentOutput, ToolCallContent } from '../../contracts/agent-output.js';
import type { McpServerConfig } from '../../config/schema.js';
import { fromAcpMcpServers } from './acp-prompt.js';
import { compactionUpdate } from './acp-session-update.js';

/**
 * Agent events → ACP v2 (draft) `session/update`s. The same events as v1, in the draft's shape:
 * tool calls are upserts (`tool_call_update`), plans carry an id, chunks carry their message id.
 * Turn state (`state_update`) is the caller's: it knows when a turn starts, waits and ends.
 */
export function toV2Update(event: AgentOutput, cwd: string, messageId: () => string): v2.SessionUpdate | undefined {
  switch (event.type) {
    case 'text-delta':
      return { sessionUpdate: 'agent_message_chunk', messageId: messageId(), content: { type: 'text', text: event.text } };
    case 'thought-delta':
      return { sessionUpdate: 'agent_thought_chunk', messageId: messageId(), content: { type: 'text', text: event.text } };
    case 'tool-call':
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: event.toolCallId,
        title: event.title,
        kind: event.kind,
        status: event.status,
        rawInput: event.input,
        ...(event.locations ? { locations: event.locations.map((l) => ({ ...l, path: absolute(l.path, cwd) })) } : {}),
      };
    case 'tool-call-update':
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: event.toolCallId,
        ...(event.status ? { status: event.cancelled ? 'cancelled' : event.status } : {}),
        // `cancel` is advertised while the call runs, and withdrawn at its final status.
        ...(event.cancellable ? { capabilities: { cancel: {} } } : isFinal(event.status) ? { capabilities: null } : {}),
        ...(event.title ? { title: event.title } : {}),
        ...(event.content ? { content: event.content.map((item) => toolContent(item, cwd, event.output)) } : {}),
        ...(event.locations ? { locations: event.locations.map((l) => ({ ...l, path: absolute(l.path, cwd) })) } : {}),
        ...(event.output !== undefined ? { rawOutput: event.output } : {}),
      };
    case 'plan':
      // One plan per session: each update replaces it whole.
      return { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'plan', entries: event.entries } };
    case 'commands':
      return {
        sessionUpdate: 'available_commands_update',
        availableCommands: event.commands.map((command) => ({
          type: 'command' as const,
          name: command.name,
          description: command.description,
          ...(command.hint ? { input: { type: 'text' as const, hint: command.hint } } : {}),
        })),
      };
    case 'compaction':
      // Part of the draft's session updates (v1 gates it behind a client capability).
      return compactionUpdate(event);
    case 'notice':
      return { sessionUpdate: 'notice', severity: event.level, title: event.message.slice(0, 200) || 'Notice' };
    default:
      return undefined;
  }
}

/** A permission question's preview (Tool.preview, whose paths are absolute) as the draft's tool-call content. */
export function toV2PreviewContent(content: readonly ToolCallContent[]): v2.ToolCallContent[] {
  return content.map((item) => toolContent(item, '/', undefined));
}

function toolContent(item: ToolCallContent, cwd: string, output: unknown): v2.ToolCallContent {
  switch (item.type) {
    case 'text':
      return { type: 'content', content: { type: 'text', text: item.text } };
    case 'diff': {
      const path = absolute(item.path, cwd);
      return { type: 'diff', changes: [item.oldText === null ? { operation: 'add', path } : { operation: 'modify', path }] };
    }
    case 'terminal':
      // v2 has no client terminals: the command ran in the agent; show what it printed.
      return { type: 'content', content: { type: 'text', text: typeof output === 'string' ? output : JSON.stringify(output ?? '') } };
  }
}

/** v1 config options → v2 (`id` became `configId`). */
export function toV2ConfigOptions(options: readonly v1.SessionConfigOption[]): v2.SessionConfigOption[] {
  return options.map((option) => {
    const { id, description, ...rest } = option;
    return { ...rest, configId: id, ...(description ? { description } : {}) } as v2.SessionConfigOption;
  });
}

/** v2 MCP servers (stdio/http, optional lists) → the registry's configs; unknown kinds are skipped. */
export function fromV2McpServers(servers: readonly v2.McpServer[] | undefined): McpServerConfig[] {
  const v1Servers: v1.McpServer[] = [];
  for (const server of servers ?? []) {
    if (server.type === 'http') {
      const http = server as v2.McpServerHttp;
      v1Servers.push({ type: 'http', name: http.name, url: http.url, headers: http.headers ?? [] });
    } else if (server.type === 'stdio') {
      const stdio = server as v2.McpServerStdio;
      v1Servers.push({ name: stdio.name, command: stdio.command, args: stdio.args ?? [], env: stdio.env ?? [] });
    }
  }
  return fromAcpMcpServers(v1Servers);
}

function isFinal(status: string | undefined): boolean {
  return status === 'completed' || status === 'failed';
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
