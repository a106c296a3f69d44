import type { Runtime } from '../contracts/runtime.js';
import type { ToolContext } from '../contracts/tool.js';
import type { ServerState } from './load-server-catalog.js';

/** The tool call a server request most likely belongs to (the latest one in flight on that server). */
export function callOf(state: ServerState): { sessionId?: string; emit?: ToolContext['emit']; toolCallId?: string; elicit?: Runtime['elicit'] } {
  const call = [...state.activeCalls].at(-1);
  // A session server's requests belong to its session; a global server's, to the calling session.
  const sessionId = state.sessionId ?? call?.sessionId;
  const elicit = call?.runtime.elicit?.bind(call.runtime);
  return {
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(call ? { emit: call.emit, toolCallId: call.toolCallId } : {}),
    ...(elicit ? { elicit } : {}),
  };
}

export function stateKey(id: string, sessionId: string | undefined): string {
  return `${sessionId ?? ''}\u0000${id}`;
}

/** Whether a URI fits a template, by the SDK's UriTemplate: loaded on use, as templates come only from connected servers. */
export async function templateMatcher(): Promise<(template: string, uri: string) => boolean> {
  const { UriTemplate } = await import('@modelcontextprotocol/client');
  return (template, uri) => {
    try {
      return new UriTemplate(template).match(uri) !== null;
    } catch {
      return false;
    }
  };
}

export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
