import type { AgentOutput } from '../contracts/agent-output.js';

type ToolCallUpdate = Extract<AgentOutput, { type: 'tool-call-update' }>;

/**
 * A tool call's summary as a headless reader keeps it (the `-p` result, the MCP face's answer):
 * the latest status and title, and the text it showed (text parts, a diff by its path).
 */
export function applyToolCallUpdate(call: { status: string; title: string; output?: string }, event: ToolCallUpdate): void {
  if (event.status) call.status = event.status;
  if (event.title) call.title = event.title;
  const shown = event.content?.flatMap((part) => (part.type === 'text' ? [part.text] : part.type === 'diff' ? [`diff ${part.path}`] : []));
  if (shown && shown.length > 0) call.output = shown.join('\n');
}
