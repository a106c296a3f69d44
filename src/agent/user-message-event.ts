import type { AgentOutput } from '../contracts/agent-output.js';
import type { PromptInput } from './agent.js';

/** The `user-message` event of a prompt, with the protocol's message id when it gave one. */
export function userMessageEvent(input: PromptInput): Extract<AgentOutput, { type: 'user-message' }> {
  return { type: 'user-message', sessionId: input.sessionId, content: input.prompt, ...(input.messageId ? { messageId: input.messageId } : {}) };
}
