import type { AgentExtension } from '../agent/agent-extension.js';
import type { Log } from './stderr-log.js';

/**
 * An extension that logs each tool call at debug: its name, source, how long it took (from
 * the call's admission, a permission question included) and its outcome. Arguments and
 * results are left out: they may hold anything the user has.
 */
export function logToolCalls(log: Log): AgentExtension {
  const started = new Map<string, number>();
  return {
    name: 'tool-call log',
    onToolCall(_context, call) {
      started.set(call.toolCallId, performance.now());
    },
    onToolResult(context, call) {
      const begun = started.get(call.toolCallId);
      started.delete(call.toolCallId);
      const durationMs = begun === undefined ? undefined : Math.round(performance.now() - begun);
      const outcome = call.result.isError ? 'error' : 'ok';
      log('debug', `tool call: ${call.toolName} (${call.source}) ${outcome}${durationMs === undefined ? '' : ` in ${durationMs} ms`}`, {
        event: 'tool-call',
        sessionId: context.sessionId,
        toolCallId: call.toolCallId,
        tool: call.toolName,
        source: call.source,
        durationMs,
        outcome,
      });
    },
    onSessionClose() {
      // Calls refused before they ran never get a result: forget them with their session.
      if (started.size > 1_000) started.clear();
    },
  };
}
