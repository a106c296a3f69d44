import type { ModelMessage } from 'ai';
import type { AgentErrorInfo } from '../contracts/agent-output.js';
import type { StepOptions, StepOutcome } from './stream-model-step.js';

/**
 * A provider's refusal of the request's content (HTTP 400/413/415/422) that names an attachment,
 * or the AI SDK provider's own refusal before sending ("'file part media type application/zip'
 * functionality not supported"): a file type the provider cannot put in a request at all.
 */
const REFUSED_STATUS = /HTTP (?:400|413|415|422)\b|functionality not supported/;
const ATTACHMENT_WORDS = /image|attachment|file|media|mime|pdf|document/i;

/**
 * A model step that survives a provider refusing an attachment: when the request failed
 * before anything streamed and the provider's error (or its SDK, for a file type it cannot
 * send) names an attachment, the step is sent
 * again with the history's images and files replaced by a note (`retry`), and says so in a
 * notice. Only what is sent changes: the user's stored record keeps the attachment. `undefined`:
 * no retry.
 */
export function attachmentRetry(options: StepOptions, outcome: StepOutcome, streamed: boolean): { retry: StepOptions; notice: string } | undefined {
  if (streamed || !outcome.error || outcome.toolCalls.length > 0 || !refusesAttachment(outcome.error)) return undefined;
  const stripped = withoutAttachments(options.messages);
  if (stripped.dropped === 0) return undefined;
  const notice =
    `The model refused an attachment (${outcome.error.message}); ${stripped.dropped === 1 ? 'it was' : `${stripped.dropped} attachments were`} ` +
    'left out of what is sent to the model this turn. The session keeps them in its record.';
  return { retry: { ...options, messages: stripped.messages }, notice };
}

function refusesAttachment(error: AgentErrorInfo): boolean {
  return REFUSED_STATUS.test(error.message) && ATTACHMENT_WORDS.test(error.message);
}

/** The history with every image and file part (user messages and tool results) replaced by a short note. */
export function withoutAttachments(messages: readonly ModelMessage[]): { messages: ModelMessage[]; dropped: number } {
  let dropped = 0;
  const note = (kind: string) => {
    dropped++;
    return { type: 'text' as const, text: `[${kind} left out: the model refused it]` };
  };
  const result = messages.map((message): ModelMessage => {
    if (message.role === 'user' && Array.isArray(message.content)) {
      if (!message.content.some((part) => part.type === 'image' || part.type === 'file')) return message;
      return { ...message, content: message.content.map((part) => (part.type === 'image' ? note('an image') : part.type === 'file' ? note('a file') : part)) };
    }
    if (message.role === 'tool') {
      if (!message.content.some((part) => part.type === 'tool-result' && part.output.type === 'content' && part.output.value.some((item) => item.type === 'media'))) return message;
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'tool-result' && part.output.type === 'content'
            ? { ...part, output: { ...part.output, value: part.output.value.map((item) => (item.type === 'media' ? note('an image') : item)) } }
            : part,
        ),
      };
    }
    return message;
  });
  return { messages: result, dropped };
}
