import { TaskState } from '@a2a-js/sdk';
import type { AgentOutput, PermissionDecision, PermissionOption } from '../../contracts/agent-output.js';
import { rejectOnce } from '../../agent/reject-once.js';
import { formatDuration } from '../../model/format-duration.js';
import { agentMessage, dataPart, textPart } from './a2a-messages.js';
import { describeAnswers } from './a2a-permission-answer.js';
import type { TaskPublisher } from './a2a-task-publisher.js';

/** A permission question the task waits on; a follow-up message answers it. */
export interface OpenQuestion {
  title: string;
  options: PermissionOption[];
  answer(optionId: string): void;
}

/** What a question needs: where it is published, the turn's signal, how long it waits, who is told. */
export interface AskOptions {
  publisher: TaskPublisher;
  signal: AbortSignal;
  inputTimeoutMs: number;
  /** Told when the task starts waiting for an answer, and (`undefined`) when it stops. */
  onQuestion(question: OpenQuestion | undefined): void;
}

export type PermissionRequest = Extract<AgentOutput, { type: 'permission-request' }>;

/**
 * Puts the question to the peer (`input-required`) and waits for its answer, the turn's
 * cancellation, the question being withdrawn, or the timeout, whichever comes first.
 */
export function askPeer(event: PermissionRequest, options: AskOptions): Promise<PermissionDecision> {
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
    const settle = (decision: PermissionDecision) => {
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
      const waited = formatDuration(options.inputTimeoutMs);
      publisher.status(TaskState.TASK_STATE_WORKING, agentMessage(ids, [textPart(`No answer within ${waited}: "${event.title}" was rejected.`)], { kind: 'input-timeout' }));
      settle(rejectOnce(event.options, `the A2A peer was asked and gave no answer within ${waited}`));
    }, options.inputTimeoutMs);
    cleanups.push(() => clearTimeout(timer));
    options.onQuestion({ title: event.title, options: event.options, answer: (optionId) => settle({ outcome: 'selected', optionId }) });
  });
}
