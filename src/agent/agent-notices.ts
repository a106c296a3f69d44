import type { AgentExtension } from './agent-extension.js';
import type { AgentErrorInfo, AgentOutput } from '../contracts/agent-output.js';
import { errorMessage } from '../errors/error-message.js';

/** Runs one hook on every extension at once; a failure becomes a notice, never an exception. */
export async function runHooks(
  extensions: readonly AgentExtension[],
  hook: string,
  call: (extension: AgentExtension) => Promise<unknown> | unknown,
  publish: (event: AgentOutput) => void,
  sessionId: string,
): Promise<void> {
  await Promise.all(extensions.map((extension) => runHook(extension, hook, call, publish, sessionId)));
}

/** Runs one hook on every extension, one after another (their order matters: tools, prompt parts). */
export async function runHooksInOrder(
  extensions: readonly AgentExtension[],
  hook: string,
  call: (extension: AgentExtension) => Promise<unknown> | unknown,
  publish: (event: AgentOutput) => void,
  sessionId: string,
): Promise<void> {
  for (const extension of extensions) await runHook(extension, hook, call, publish, sessionId);
}

async function runHook(
  extension: AgentExtension,
  hook: string,
  call: (extension: AgentExtension) => Promise<unknown> | unknown,
  publish: (event: AgentOutput) => void,
  sessionId: string,
): Promise<void> {
  try {
    await call(extension);
  } catch (error) {
    publish(noticeOf(sessionId, extension.name, hook, error));
  }
}

export function noticeOf(sessionId: string, extension: string, hook: string, error: unknown): AgentOutput {
  const message = errorMessage(error);
  return { type: 'notice', sessionId, level: 'warning', message: `${extension} (${hook}) failed: ${message}` };
}

export function errorInfo(error: unknown, fallback: string): AgentErrorInfo {
  const message = errorMessage(error);
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : fallback;
  return { code, message };
}
