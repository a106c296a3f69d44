import type { AgentOutput } from '../contracts/agent-output.js';

/**
 * A sub-agent's event as the parent's stream shows it: its tool calls nest under the
 * parent's `task` call (ids prefixed so they stay unique in the parent session), its
 * permission questions go to the parent's client. Text and turn events stay in the child.
 */
export function forwardChildEvent(event: AgentOutput, parentSessionId: string, parentToolCallId: string): AgentOutput | undefined {
  const id = (toolCallId: string) => `${parentToolCallId}/${toolCallId}`;
  switch (event.type) {
    case 'tool-call':
      return { ...event, sessionId: parentSessionId, toolCallId: id(event.toolCallId), parentToolCallId: event.parentToolCallId ? id(event.parentToolCallId) : parentToolCallId };
    case 'tool-call-update': {
      // A nested call cannot be cancelled through the parent's session: not advertised as such.
      const { cancellable: _cancellable, ...update } = event;
      return { ...update, sessionId: parentSessionId, toolCallId: id(event.toolCallId) };
    }
    case 'permission-request':
      return { ...event, sessionId: parentSessionId, toolCallId: id(event.toolCallId) };
    case 'plan':
    case 'notice':
      return { ...event, sessionId: parentSessionId };
    default:
      return undefined;
  }
}
