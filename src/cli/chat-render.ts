import type { AgentOutput, ToolCallContent } from '../contracts/agent-output.js';

const DIFF_LINES = 20;

/**
 * How `chat` shows one event of a turn in the terminal: the answer streamed as it comes, each
 * tool call on its own line with its title and then its outcome (a file edit as a short diff),
 * notices in brackets. `undefined` for events the terminal does not show.
 */
export function renderChatEvent(event: AgentOutput): string | undefined {
  switch (event.type) {
    case 'text-delta':
      return event.text;
    case 'tool-call':
      return `\n⏺ ${event.title}\n`;
    case 'tool-call-update': {
      const diffs = (event.content ?? []).flatMap((content) => (content.type === 'diff' ? [renderDiff(content)] : []));
      if (event.status === 'completed') return `${diffs.join('')}  ✓ ${event.title ?? 'done'}\n`;
      if (event.status === 'failed') return `  ✗ ${event.cancelled ? 'cancelled' : failure(event.output) || 'failed'}\n`;
      return undefined;
    }
    case 'notice':
      return `\n[${event.level}] ${event.message}\n`;
    case 'error':
      return `\n[error] ${event.error.message}\n`;
    case 'turn-end':
      return event.stopReason === 'cancelled' ? '\n[turn cancelled]\n' : event.stopReason === 'end_turn' ? '\n' : `\n[turn ended: ${event.stopReason}]\n`;
    default:
      return undefined;
  }
}

function renderDiff(diff: Extract<ToolCallContent, { type: 'diff' }>): string {
  const split = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const before = diff.oldText === null ? [] : split(diff.oldText);
  const after = split(diff.newText);
  const lines = [...before.filter((line) => !after.includes(line)).map((line) => `  - ${line}`), ...after.filter((line) => !before.includes(line)).map((line) => `  + ${line}`)];
  const shown = lines.slice(0, DIFF_LINES);
  const more = lines.length > DIFF_LINES ? `  … ${lines.length - DIFF_LINES} more lines\n` : '';
  return `  ${diff.path}\n${shown.map((line) => `${line}\n`).join('')}${more}`;
}

function failure(output: unknown): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? '');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
