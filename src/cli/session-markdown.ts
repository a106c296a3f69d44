import type { SessionInfo } from '../agent/agent.js';
import type { AgentOutput, ContentPart } from '../contracts/agent-output.js';

/** A stored session as Markdown: who said what, each tool call with its input and final result. */
export function sessionMarkdown(info: SessionInfo, history: readonly AgentOutput[]): string {
  const out: string[] = [`# ${info.title ?? 'Session'} (${info.sessionId})`, '', `- project: ${info.cwd}`, `- mode: ${info.mode}`, `- created: ${info.createdAt}`, `- updated: ${info.updatedAt}`];
  let speaker: 'user' | 'agent' | undefined;
  let text = '';
  const flush = () => {
    if (text.trim() !== '') out.push('', unforgeable(text.trim()));
    text = '';
  };
  const heading = (who: 'user' | 'agent') => {
    if (speaker === who) return;
    flush();
    speaker = who;
    out.push('', who === 'user' ? '## User' : '## Agent');
  };
  const calls = new Map<string, { line: number; title: string }>();
  for (const event of history) {
    switch (event.type) {
      case 'user-message':
        heading('user');
        text += event.content.map(partText).join('\n');
        break;
      case 'text-delta':
        heading('agent');
        text += event.text;
        break;
      case 'tool-call':
        heading('agent');
        flush();
        out.push('', `- tool \`${event.toolName}\`: ${event.title} (${event.status})`, `  - input: \`${JSON.stringify(event.input)}\``);
        calls.set(event.toolCallId, { line: out.length - 2, title: event.title });
        break;
      case 'tool-call-update': {
        const call = calls.get(event.toolCallId);
        if (!call) break;
        if (event.status) out[call.line] = out[call.line]!.replace(/\((\w+)\)$/, `(${event.status})`);
        const shown = event.content?.flatMap((part) => (part.type === 'text' ? [part.text] : part.type === 'diff' ? [`diff of ${part.path}`] : []));
        if (shown && shown.length > 0 && (event.status === 'completed' || event.status === 'failed')) out.push('  - result:', '', fenced(shown.join('\n')));
        break;
      }
      case 'notice':
        flush();
        out.push('', quoted(`${event.level}: ${event.message}`));
        break;
      case 'error':
        flush();
        out.push('', quoted(`error (${event.error.code}): ${event.error.message}`));
        break;
      case 'turn-end':
        flush();
        if (event.stopReason !== 'end_turn') out.push('', `> the turn ended: ${event.stopReason}`);
        speaker = undefined;
        break;
      default:
        break;
    }
  }
  flush();
  return `${out.join('\n')}\n`;
}

/**
 * A message's text with the lines that would read as this export's own turn headings (`## User`,
 * `## Agent`, or `User` over `---`) escaped: an answer (or a file it quotes) could otherwise add a
 * turn the user never wrote. Its other Markdown, headings included, stays as written.
 */
function unforgeable(text: string): string {
  return text
    .replace(/^( {0,3})(#{1,6}[ \t]+(?:user|agent)[ \t]*#*[ \t]*)$/gim, '$1\\$2')
    .replace(/^( {0,3}(?:user|agent)[ \t]*\n {0,3})([=-]+[ \t]*)$/gim, '$1\\$2');
}

/** A blockquote of every line: a message of several lines stays inside it. */
function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
      return `[image ${part.mimeType}]`;
    case 'resource':
      return `[resource ${part.uri}]`;
    case 'resource_link':
      return `[${part.name}](${part.uri})`;
  }
}

/** A code block no backtick run in `text` can close early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}
