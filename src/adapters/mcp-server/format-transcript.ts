import type { AgentOutput, ContentPart } from '../../contracts/agent-output.js';
import type { SessionInfo } from '../../agent/agent.js';

/**
 * A session's stored events as a readable Markdown transcript (the
 * `plaited://sessions/{id}` resource): user turns, the agent's text, tool calls and their outcome.
 */
export function formatTranscript(info: SessionInfo, history: readonly AgentOutput[]): string {
  const lines: string[] = [`# Session ${info.sessionId}`, '', `- cwd: ${info.cwd}`, `- title: ${info.title ?? '(untitled)'}`, `- mode: ${info.mode}`, ''];
  const titles = new Map<string, string>();
  let speaker: 'user' | 'agent' | undefined;
  const heading = (who: 'user' | 'agent') => {
    if (speaker === who) return;
    speaker = who;
    lines.push('', who === 'user' ? '## User' : '## Agent', '');
  };
  for (const event of history) {
    switch (event.type) {
      case 'user-message':
        heading('user');
        lines.push(contentText(event.content));
        break;
      case 'text-delta':
        heading('agent');
        lines.push(event.text);
        break;
      case 'tool-call':
        heading('agent');
        titles.set(event.toolCallId, event.title);
        lines.push(`- tool \`${event.toolName}\`: ${event.title} (${JSON.stringify(event.input)})`);
        break;
      case 'tool-call-update':
        if (event.status === 'completed' || event.status === 'failed') {
          lines.push(`  - ${titles.get(event.toolCallId) ?? event.toolCallId}: ${event.status}`);
        }
        break;
      case 'turn-end':
        lines.push('', `_(turn ended: ${event.stopReason})_`);
        speaker = undefined;
        break;
      case 'error':
        lines.push('', `_(error ${event.error.code}: ${event.error.message})_`);
        break;
      default:
        break;
    }
  }
  return `${lines.join('\n').trim()}\n`;
}

function contentText(content: readonly ContentPart[]): string {
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'resource_link') return `[${part.name}](${part.uri})`;
      if (part.type === 'resource') return part.text ?? `(resource ${part.uri})`;
      return `(image ${part.mimeType})`;
    })
    .join('\n');
}
