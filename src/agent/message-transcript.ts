import type { ModelMessage } from 'ai';

/** Messages as plain text (for episode summaries): user and assistant text, tool calls by name, results cut short. */
export function messageTranscript(messages: readonly ModelMessage[], maxResultChars = 300): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      lines.push(`${message.role}: ${message.content}`);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') lines.push(`${message.role}: ${part.text}`);
      else if (part.type === 'tool-call') lines.push(`tool call ${part.toolName} ${JSON.stringify(part.input).slice(0, 200)}`);
      else if (part.type === 'tool-result') {
        const output = part.output;
        const text = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
        lines.push(`tool result ${part.toolName}: ${text.slice(0, maxResultChars)}`);
      }
    }
  }
  return lines.join('\n');
}
