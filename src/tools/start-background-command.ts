import type { ToolContext, ToolResult } from '../contracts/tool.js';
import { errorResult, textResult } from './tool-result.js';
import { errorMessage } from '../errors/error-message.js';
import { describeBackground } from './background-tools.js';

/** How long a new background command is watched before the call returns: long enough to catch a typo'd command. */
const SETTLE_MS = 300;

/**
 * `bash` with `background: true`: the command starts in the session's runtime (so in the sandbox
 * when there is one) and keeps running after this call returns. The result names its id, with
 * what it printed so far (or how it ended, if it already did).
 */
export async function startBackgroundCommand(
  command: string,
  context: ToolContext,
  options: { passEnv?: readonly string[]; timeoutMs?: number },
): Promise<ToolResult> {
  const background = context.background;
  if (!background) return errorResult('Background commands are not available here; run it without background.');
  let id: string;
  try {
    id = background.start({ sessionId: context.sessionId, toolCallId: context.toolCallId, command, runtime: context.runtime, cwd: context.runtime.cwd, ...options });
  } catch (error) {
    return errorResult(`Could not start the command: ${errorMessage(error)}`);
  }
  await background.settle(id, SETTLE_MS);
  const snapshot = background.read(context.sessionId, id);
  if (!snapshot) return errorResult(`Background command ${id} is gone.`);
  const head = snapshot.running
    ? `Started in the background as ${id}; it keeps running. Read new output with bash_output (id "${id}"), stop it with bash_kill.`
    : `Background command ${id} already ended.`;
  const text = `${head}\n${describeBackground(snapshot)}`;
  return snapshot.running || snapshot.exitCode === 0 ? textResult(text) : { ...textResult(text), isError: true };
}
