import { TaskState } from '@a2a-js/sdk';
import type { Agent } from '../../agent/agent.js';
import type { AgentErrorInfo, AgentOutput, ContentPart, PermissionOption, StopReason } from '../../contracts/agent-output.js';
import { agentMessage, dataPart, textPart } from './a2a-messages.js';
import { describeAnswers } from './a2a-permission-answer.js';
import type { TaskPublisher } from './a2a-task-publisher.js';
import { FileArtifacts } from './file-artifacts.js';

/** A permission question the task waits on; a follow-up message answers it. */
export interface OpenQuestion {
  title: string;
  options: PermissionOption[];
  answer(optionId: string): void;
}

export interface RunA2aTurnOptions {
  sessionId: string;
  prompt: ContentPart[];
  publisher: TaskPublisher;
  signal: AbortSignal;
  inputTimeoutMs: number;
  /** Told when the task starts waiting for an answer, and (`undefined`) when it stops. */
  onQuestion(question: OpenQuestion | undefined): void;
}

type PermissionRequest = Extract<AgentOutput, { type: 'permission-request' }>;

/**
 * Runs one agent turn as an A2A task: streamed text and tool steps become working-status
 * updates, written files become artifacts, a permission request becomes `input-required`,
 * and the turn's end becomes the terminal state with the answer as its message.
 */
export async function runA2aTurn(agent: Agent, options: RunA2aTurnOptions): Promise<void> {
  const { publisher, signal } = options;
  const files = new FileArtifacts();
  let answer = '';
  let stopReason: StopReason = 'end_turn';
  let error: AgentErrorInfo | undefined;
  try {
    // A task is one question with its own answer: a second task on a busy context waits its turn.
    // Thinking goes out whole, one working-status `thought` step per stretch of it (ACP's thought chunks).
    let thought = '';
    const flushThought = () => {
      if (thought) publisher.step('thought', { text: thought });
      thought = '';
    };
    for await (const event of agent.process({ sessionId: options.sessionId, prompt: options.prompt }, { signal, sendMode: 'queue' })) {
      if (event.type === 'thought-delta') {
        thought += event.text;
        continue;
      }
      flushThought();
      switch (event.type) {
        case 'text-delta':
          answer += event.text;
          publisher.appendText(event.text);
          break;
        case 'tool-call':
          publisher.step('tool-call', {
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            title: event.title,
            kind: event.kind,
            status: event.status,
            input: event.input ?? null,
          });
          break;
        case 'tool-call-update': {
          const shown = event.content?.flatMap((part) => (part.type === 'text' ? [part.text] : part.type === 'diff' ? [`diff ${part.path}`] : []));
          publisher.step('tool-call-update', {
            toolCallId: event.toolCallId,
            ...(event.status ? { status: event.status } : {}),
            ...(event.title ? { title: event.title } : {}),
            ...(shown && shown.length > 0 ? { output: shown.join('\n') } : {}),
          });
          if (event.status !== 'failed') for (const artifact of files.record(event.content)) publisher.artifact(artifact);
          break;
        }
        case 'permission-request':
          event.respond(await ask(event, options));
          break;
        case 'plan':
          publisher.step('plan', { entries: event.entries });
          break;
        case 'notice':
          if (event.level !== 'info') publisher.step('notice', { level: event.level, message: event.message });
          break;
        case 'turn-end':
          stopReason = event.stopReason;
          break;
        case 'error':
          error = event.error;
          break;
        default:
          break;
      }
    }
  } catch (thrown) {
    error = { code: 'internal_error', message: (thrown as Error).message };
  }
  const ids = publisher.ids;
  if (signal.aborted || stopReason === 'cancelled') {
    publisher.finish(TaskState.TASK_STATE_CANCELED, agentMessage(ids, [textPart('The task was canceled.')]), { stopReason: 'cancelled' });
  } else if (error) {
    publisher.finish(TaskState.TASK_STATE_FAILED, agentMessage(ids, [textPart(error.message)], { error }), { error });
  } else {
    publisher.finish(TaskState.TASK_STATE_COMPLETED, agentMessage(ids, [textPart(answer)], { stopReason, final: true }), { stopReason });
  }
}

/**
 * Puts the question to the peer (`input-required`) and waits for its answer, the turn's
 * cancellation, the question being withdrawn, or the timeout, whichever comes first.
 */
function ask(event: PermissionRequest, options: RunA2aTurnOptions): Promise<{ outcome: 'selected'; optionId: string } | { outcome: 'cancelled' }> {
  const { publisher, signal } = options;
  const ids = publisher.ids;
  publisher.status(
    TaskState.TASK_STATE_INPUT_REQUIRED,
    agentMessage(ids, [
      textPart(`Permission needed: ${event.title}. Reply with one of ${describeAnswers(event.options)} (or simply "allow", "always" or "reject").`),
      dataPart({ type: 'permission-request', toolCallId: event.toolCallId, title: event.title, kind: event.kind, input: event.input ?? null, options: event.options }),
    ]),
  );
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const settle = (decision: { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' }) => {
      for (const cleanup of cleanups) cleanup();
      options.onQuestion(undefined);
      resolve(decision);
    };
    const abort = () => settle({ outcome: 'cancelled' });
    for (const watched of [signal, event.signal]) {
      if (!watched) continue;
      if (watched.aborted) return abort();
      watched.addEventListener('abort', abort, { once: true });
      cleanups.push(() => watched.removeEventListener('abort', abort));
    }
    const timer = setTimeout(() => {
      const reject = event.options.find((option) => option.kind === 'reject_once') ?? event.options.find((option) => option.kind.startsWith('reject'));
      publisher.status(
        TaskState.TASK_STATE_WORKING,
        agentMessage(ids, [textPart(`No answer within ${Math.round(options.inputTimeoutMs / 1000)} s: "${event.title}" was rejected.`)], { kind: 'input-timeout' }),
      );
      settle(reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' });
    }, options.inputTimeoutMs);
    cleanups.push(() => clearTimeout(timer));
    options.onQuestion({ title: event.title, options: event.options, answer: (optionId) => settle({ outcome: 'selected', optionId }) });
  });
}
