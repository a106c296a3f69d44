import { isAbsolute, resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentOutput, ContentPart, ToolCallContent, ToolCallLocation } from '../../contracts/agent-output.js';

export interface UpdateContext {
  cwd: string;
  /** Replaying history for session/load: user messages are sent, live terminals become text. */
  replay: boolean;
  /** The client advertised `session.notices`; otherwise notices become agent messages. */
  notices: boolean;
  /** The client advertised `session.compaction`; `compaction_update` is sent only then. */
  compaction?: boolean;
}

/** One agent event → the ACP `session/update` it maps to, or undefined when it has none. */
export function toSessionUpdate(event: AgentOutput, context: UpdateContext): acp.SessionUpdate | undefined {
  switch (event.type) {
    case 'user-message':
      // A live client shows its own prompt; the message is only sent back when replaying.
      return undefined;
    case 'text-delta':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } };
    case 'thought-delta':
      return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } };
    case 'tool-call':
      return {
        sessionUpdate: 'tool_call',
        toolCallId: event.toolCallId,
        title: event.title,
        kind: event.kind,
        status: event.status,
        rawInput: event.input as Record<string, unknown>,
        ...(event.locations ? { locations: absoluteLocations(event.locations, context.cwd) } : {}),
        // ACP has no nesting field: sub-agent calls carry their parent in _meta.
        ...(event.parentToolCallId ? { _meta: { parentToolCallId: event.parentToolCallId } } : {}),
      };
    case 'tool-call-update':
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: event.toolCallId,
        ...(event.status ? { status: event.status } : {}),
        ...(event.title ? { title: event.title } : {}),
        ...(event.content ? { content: toolCallContent(event.content, context, event.output) } : {}),
        ...(event.locations ? { locations: absoluteLocations(event.locations, context.cwd) } : {}),
        ...(event.output !== undefined ? { rawOutput: rawOutput(event.output) } : {}),
      };
    case 'plan':
      return { sessionUpdate: 'plan', entries: event.entries };
    case 'compaction':
      return context.compaction ? compactionUpdate(event) : undefined;
    case 'mode-change':
      return { sessionUpdate: 'current_mode_update', currentModeId: event.modeId };
    case 'commands':
      return {
        sessionUpdate: 'available_commands_update',
        availableCommands: event.commands.map((command) => ({
          name: command.name,
          description: command.description,
          ...(command.hint ? { input: { hint: command.hint } } : {}),
        })),
      };
    case 'notice':
      if (context.replay) return undefined;
      if (context.notices) {
        return { sessionUpdate: 'notice', severity: event.level, title: event.message.slice(0, 200) || 'Notice', description: event.message };
      }
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n[${event.level}] ${event.message}\n` } };
    default:
      return undefined;
  }
}

/** The user's message as `user_message_chunk`s, for session/load. */
export function userMessageUpdates(content: readonly ContentPart[]): acp.SessionUpdate[] {
  return content.map((part) => ({ sessionUpdate: 'user_message_chunk', content: toContentBlock(part) }));
}

export function toContentBlock(part: ContentPart): acp.ContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mimeType, ...(part.uri ? { uri: part.uri } : {}) };
    case 'resource':
      return part.text !== undefined
        ? { type: 'resource', resource: { uri: part.uri, text: part.text, ...(part.mimeType ? { mimeType: part.mimeType } : {}) } }
        : { type: 'resource', resource: { uri: part.uri, blob: part.blob ?? '', ...(part.mimeType ? { mimeType: part.mimeType } : {}) } };
    case 'resource_link':
      return { type: 'resource_link', uri: part.uri, name: part.name, ...(part.mimeType ? { mimeType: part.mimeType } : {}) };
  }
}

/** A permission question's preview (Tool.preview, whose paths are absolute) as ACP tool-call content. */
export function previewContent(content: readonly ToolCallContent[]): acp.ToolCallContent[] {
  return toolCallContent(content, { cwd: '/', replay: false, notices: false }, undefined);
}

function toolCallContent(content: readonly ToolCallContent[], context: UpdateContext, output: unknown): acp.ToolCallContent[] {
  return content.map((item): acp.ToolCallContent => {
    switch (item.type) {
      case 'text':
        return { type: 'content', content: { type: 'text', text: item.text } };
      case 'diff':
        return { type: 'diff', path: absolute(item.path, context.cwd), oldText: item.oldText, newText: item.newText };
      case 'terminal':
        // A replayed terminal no longer exists on the client: show what it printed instead.
        return context.replay
          ? { type: 'content', content: { type: 'text', text: typeof output === 'string' ? output : JSON.stringify(output ?? '') } }
          : { type: 'terminal', terminalId: item.terminalId };
    }
  });
}

function rawOutput(output: unknown): Record<string, unknown> {
  return typeof output === 'object' && output !== null && !Array.isArray(output)
    ? (output as Record<string, unknown>)
    : { output };
}

function absoluteLocations(locations: readonly ToolCallLocation[], cwd: string): acp.ToolCallLocation[] {
  return locations.map((location) => ({ ...location, path: absolute(location.path, cwd) }));
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A compaction of the history as `compaction_update`: the same shape in v1 (behind a client capability) and in the v2 draft. */
export function compactionUpdate(event: Extract<AgentOutput, { type: 'compaction' }>) {
  return {
    sessionUpdate: 'compaction_update' as const,
    compactionId: event.compactionId,
    status: event.status,
    ...(event.summary !== undefined ? { summary: [{ type: 'text' as const, text: event.summary }] } : {}),
    ...(event.error !== undefined ? { error: event.error } : {}),
  };
}
