import type { AgentOutput } from '../contracts/agent-output.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import type { BackgroundProcesses } from '../tools/background-processes.js';
import { errorMessage } from '../errors/error-message.js';

/** Runs one approved call. A tool that throws becomes an error result the model can read. */
export async function executeToolCall(options: {
  tool: AnyTool;
  args: unknown;
  toolCallId: string;
  sessionId: string;
  runtime: Runtime;
  allowedRoots: readonly string[];
  signal: AbortSignal;
  push(event: AgentOutput): void;
  background?: BackgroundProcesses;
}): Promise<ToolResult> {
  const { tool, toolCallId, sessionId, signal, push } = options;
  try {
    const result = await tool.execute(options.args, {
      runtime: options.runtime,
      signal,
      sessionId,
      toolCallId,
      allowedRoots: options.allowedRoots,
      onUpdate: (update) => push({ type: 'tool-call-update', sessionId, toolCallId, status: 'in_progress', ...update }),
      emit: push,
      ...(options.background ? { background: options.background } : {}),
    });
    return result;
  } catch (error) {
    if (signal.aborted) return { content: [{ type: 'text', text: 'Cancelled while running.' }], isError: true };
    const message = errorMessage(error);
    return { content: [{ type: 'text', text: `Tool "${tool.name}" failed: ${message}` }], isError: true };
  }
}
