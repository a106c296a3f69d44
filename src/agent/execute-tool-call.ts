import type { AgentOutput } from '../contracts/agent-output.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import type { BackgroundProcesses } from '../tools/background-processes.js';
import { errorMessage } from '../errors/error-message.js';

const CANCELLED: ToolResult = { content: [{ type: 'text', text: 'Cancelled while running.' }], isError: true };
/** How long a cancelled call may take to settle on its own (bash: SIGTERM, 0.5 s, SIGKILL) before it is let go. */
export const CANCELLED_CALL_GRACE_MS = 5_000;

/**
 * Runs one approved call. A tool that throws becomes an error result the model can read. Once the
 * call's signal aborts it has {@link CANCELLED_CALL_GRACE_MS} to settle (with what it got so far),
 * then it is let go: a tool that ignores its signal (a library user's `defineTool` that never
 * settles) would otherwise hold the turn, the cancel and `agent.stop()` for good.
 */
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
    const result = await settledOrLetGo(tool.execute(options.args, {
      runtime: options.runtime,
      signal,
      sessionId,
      toolCallId,
      allowedRoots: options.allowedRoots,
      onUpdate: (update) => push({ type: 'tool-call-update', sessionId, toolCallId, status: 'in_progress', ...update }),
      emit: push,
      ...(options.background ? { background: options.background } : {}),
    }), signal);
    return result ?? CANCELLED;
  } catch (error) {
    if (signal.aborted) return CANCELLED;
    const message = errorMessage(error);
    return { content: [{ type: 'text', text: `Tool "${tool.name}" failed: ${message}` }], isError: true };
  }
}

/** The promise's value, or `undefined` once `signal` has been aborted for the grace period. */
function settledOrLetGo<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const letGo = () => {
      timer = setTimeout(() => resolve(undefined), CANCELLED_CALL_GRACE_MS);
    };
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', letGo);
    };
    if (signal.aborted) letGo();
    else signal.addEventListener('abort', letGo, { once: true });
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
