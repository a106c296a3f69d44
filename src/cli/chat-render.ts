import type { AgentOutput, ToolCallContent } from '../contracts/agent-output.js';

const DIFF_LINES = 20;
/** Lines of a finished call's output shown under it (the model reads all of it). */
const OUTPUT_LINES = 4;
/** A line of output, or a failure's text, is cut here. */
const LINE_CHARS = 200;

/**
 * How `chat` shows one event of a turn in the terminal: the answer streamed as it comes, each
 * tool call on its own line with its title and then its outcome (a file edit as a short diff,
 * anything else as the first lines of its output), notices in brackets. `undefined` for events
 * the terminal does not show.
 */
export function renderChatEvent(event: AgentOutput): string | undefined {
  switch (event.type) {
    case 'text-delta':
      return event.text;
    case 'tool-call':
      return `\n⏺ ${event.title}\n`;
    case 'tool-call-update': {
      const diffs = (event.content ?? []).flatMap((content) => (content.type === 'diff' ? [renderDiff(content)] : []));
      if (event.status === 'completed') return `${diffs.length > 0 ? diffs.join('') : outputPreview(event.output)}  ✓ ${event.title ?? 'done'}\n`;
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

/** Lines of a call's input shown under a permission question (a plan, a many-line command). */
const QUESTION_INPUT_LINES = 60;

/**
 * What a permission question covers beyond its title, which cuts a long or many-line command
 * short: the call's preview (an edit's diff, why it asks again), else its input (a command in
 * full, one `$` line per line; other arguments one per line, a plan's Markdown as written).
 */
export function renderQuestionDetail(request: Extract<AgentOutput, { type: 'permission-request' }>): string {
  const content = request.content ?? [];
  const preview = content.map((part) => (part.type === 'diff' ? renderDiff(part) : part.type === 'text' ? `  ${part.text}\n` : '')).join('');
  // A diff is what the call changes; its input would say it again, less clearly.
  if (content.some((part) => part.type === 'diff')) return preview;
  return `${preview}${firstLines(inputLines(request.title, request.input), QUESTION_INPUT_LINES, '  ')}`;
}

function inputLines(title: string, input: unknown): string[] {
  if (!input || typeof input !== 'object') return [];
  const { command } = input as { command?: unknown };
  if (typeof command === 'string') return title.includes(command) ? [] : command.split('\n').map((line) => `$ ${line}`);
  return Object.entries(input).flatMap(([key, value]) => {
    const [first = '', ...rest] = (typeof value === 'string' ? value : JSON.stringify(value)).split('\n');
    return [`${key}: ${first}`, ...rest.map((line) => `${' '.repeat(key.length + 2)}${line}`)];
  });
}

function renderDiff(diff: Extract<ToolCallContent, { type: 'diff' }>): string {
  const split = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const before = diff.oldText === null ? [] : split(diff.oldText);
  const after = split(diff.newText);
  const lines = [...before.filter((line) => !after.includes(line)).map((line) => `- ${line}`), ...after.filter((line) => !before.includes(line)).map((line) => `+ ${line}`)];
  return `  ${diff.path}\n${firstLines(lines, DIFF_LINES, '  ')}`;
}

/** The first lines of what a call returned (a command's exit code and output, a file's first lines). */
function outputPreview(output: unknown): string {
  if (typeof output !== 'string' || output.trim() === '') return '';
  return firstLines(output.replace(/\n+$/, '').split('\n').map(cut), OUTPUT_LINES, '  │ ');
}

function failure(output: unknown): string {
  return cut(typeof output === 'string' ? output : JSON.stringify(output ?? ''));
}

/** At most `max` lines, each after `indent`, then how many more there were. */
function firstLines(lines: readonly string[], max: number, indent: string): string {
  const more = lines.length > max ? [`… ${lines.length - max} more lines`] : [];
  return [...lines.slice(0, max), ...more].map((line) => `${indent}${line}\n`).join('');
}

function cut(text: string): string {
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text;
}
