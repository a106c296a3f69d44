import type { ToolContext } from '../contracts/tool.js';

/** A context for tools run outside a turn (`tools.execute` without one): MCP tools need only the signal. */
export function detachedContext(sessionId: string, signal: AbortSignal | undefined): ToolContext {
  const unavailable = () => Promise.reject(new Error('no runtime: this tool was executed outside a turn'));
  return {
    runtime: { cwd: process.cwd(), kind: 'none', readFile: unavailable, writeFile: unavailable, exec: unavailable },
    signal: signal ?? new AbortController().signal,
    sessionId,
    toolCallId: `registry-${Date.now().toString(36)}`,
    allowedRoots: [],
    onUpdate: () => undefined,
    emit: () => undefined,
  };
}
