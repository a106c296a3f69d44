import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { RecordedRequest, ScriptToolCall } from '../../helpers/scripted-openai-server.js';

/**
 * A prompt that names the tool call the scripted model answers it with, so tests running at
 * the same time (each its own CLI and session) can share one model server: the model reads the
 * call from the turn's user message instead of from a variable the tests would race on.
 */
export function promptCalling(call: ScriptToolCall): ContentBlock[] {
  return [{ type: 'text', text: `<<call ${JSON.stringify(call)} call>>` }];
}

/** The call named by the last user message of a chat request (see `promptCalling`). */
export function promptedCall(request: RecordedRequest): ScriptToolCall {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  const content = user?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
  const named = /<<call (.*?) call>>/s.exec(text)?.[1];
  if (named === undefined) throw new Error(`the prompt names no tool call for the scripted model: ${text.slice(0, 200)}`);
  return JSON.parse(named) as ScriptToolCall;
}
