import path from 'node:path';
import type { ToolContext, ToolResult } from '../contracts/tool.js';
import { errorResult } from './tool-result.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { isWithin, resolveWorkspacePath } from './workspace-path.js';
import { errorMessage } from '../errors/error-message.js';
import { agentStateRefusal, isAgentStatePath } from './agent-state-path.js';

export type ResolvedToolPath =
  | { ok: true; absolute: string; display: string }
  | { ok: false; result: ToolResult };

/**
 * A tool's path argument, checked against the workspace and kept out of the
 * agent's own state (agent-state-path.ts). A refusal comes back as
 * an error ToolResult for the model, never as a throw.
 */
export async function resolveToolPath(
  input: string,
  context: Pick<ToolContext, 'runtime' | 'allowedRoots'>,
): Promise<ResolvedToolPath> {
  try {
    const absolute = await resolveWorkspacePath(input, context.runtime.cwd, context.allowedRoots);
    if (await isAgentStatePath(absolute)) return { ok: false, result: errorResult(agentStateRefusal(input)) };
    return { ok: true, absolute, display: displayPath(absolute, context.runtime.cwd) };
  } catch (error) {
    if (PathOutsideWorkspaceError.isInstance(error)) return { ok: false, result: errorResult(error.message) };
    return { ok: false, result: errorResult(`Cannot use path "${input}": ${errorMessage(error)}`) };
  }
}

/** Relative to cwd when inside it (what the model and a user read best), else absolute. */
export function displayPath(absolute: string, cwd: string): string {
  const root = path.resolve(cwd);
  if (!isWithin(absolute, root)) return absolute;
  return path.relative(root, absolute) || '.';
}
