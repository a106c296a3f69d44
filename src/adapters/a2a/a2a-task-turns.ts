import { TaskState } from '@a2a-js/sdk';
import type { AgentErrorInfo, AgentOutput, StopReason } from '../../contracts/agent-output.js';
import { agentMessage, textPart } from './a2a-messages.js';
import { askPeer, type AskOptions } from './ask-a2a-peer.js';
import { FileArtifacts } from './file-artifacts.js';
import { TurnText } from '../../agent/turn-text.js';
import { endedAs } from './task-ended-reply.js';

/**
 * What one A2A task answers: its message's turn, and every message sent on the task while it
 * runs. Such a message joins the turn (steering, with the task as the turn key) or, when the turn
 * ended before taking it, runs as a turn of its own whose events reach the same task: the task's
 * final state waits for it. Streamed text and tool steps become working-status updates, written
 * files artifacts, a permission request `input-required`, and the end the terminal state with the
 * answer as its message. Once that state is decided the task takes no more messages.
 */
export class A2aTaskTurns {
  readonly #ask: AskOptions;
  readonly #files = new FileArtifacts();
  readonly #streams = new Set<Promise<void>>();
  #answer = '';
  /** A later turn's answer (a late message's) begins a paragraph of its own, as a later step's does. */
  readonly #text = new TurnText();
  #thought = '';
  #stopReason: StopReason = 'end_turn';
  #error: AgentErrorInfo | undefined;
  #final: TaskState | undefined;
  #markStarted!: () => void;
  readonly #started = new Promise<void>((resolve) => (this.#markStarted = resolve));

  constructor(options: AskOptions) {
    this.#ask = options;
  }

  /** Whether the task still takes a message (its final state is not decided yet). */
  get open(): boolean {
    return this.#final === undefined;
  }

  /** The task's terminal state as the A2A 0.3 names it, once decided. */
  get endedAs(): string | undefined {
    return endedAs(this.#final);
  }

  /**
   * Settles once the task's own turn runs (or ended without one): a message sent earlier waits for
   * it, so it joins that turn or queues behind it, never a turn of another task on the session.
   */
  started(): Promise<void> {
    return this.#started;
  }

  /** The task's own turn. */
  run(events: AsyncIterable<AgentOutput>): void {
    this.#follow(events, true);
  }

  /** A message sent on the task while it runs: `false` when the task's final state is already decided. */
  add(events: AsyncIterable<AgentOutput>): boolean {
    if (!this.open) return false;
    this.#follow(events, false);
    return true;
  }

  /** Waits for every turn of the task, then publishes its terminal state. */
  async finish(): Promise<void> {
    while (this.#streams.size > 0) await Promise.all(this.#streams);
    // No await from the last check to here: a message arriving now finds the task closed.
    const { publisher, signal } = this.#ask;
    const ids = publisher.ids;
    if (signal.aborted || this.#stopReason === 'cancelled') {
      this.#final = TaskState.TASK_STATE_CANCELED;
      publisher.finish(this.#final, agentMessage(ids, [textPart('The task was canceled.')]), { stopReason: 'cancelled' });
    } else if (this.#error) {
      const error = this.#error;
      this.#final = TaskState.TASK_STATE_FAILED;
      publisher.finish(this.#final, agentMessage(ids, [textPart(error.message)], { error }), { error });
    } else {
      const stopReason = this.#stopReason;
      this.#final = TaskState.TASK_STATE_COMPLETED;
      publisher.finish(this.#final, agentMessage(ids, [textPart(this.#answer)], { stopReason, final: true }), { stopReason });
    }
  }

  #follow(events: AsyncIterable<AgentOutput>, own: boolean): void {
    const consumed = this.#consume(events, own).finally(() => {
      this.#streams.delete(consumed);
      if (own) this.#markStarted();
    });
    this.#streams.add(consumed);
  }

  async #consume(events: AsyncIterable<AgentOutput>, own: boolean): Promise<void> {
    // A message the running turn took ends its own stream at once (its user message, then
    // `turn-end`): nothing of it is the task's outcome. One that ran as a turn of its own is.
    let ranTurn = own;
    try {
      for await (const event of events) {
        if (own) this.#markStarted();
        if (event.type === 'user-message') continue;
        if (!ranTurn && event.type === 'turn-end') continue;
        ranTurn = true;
        await this.#take(event);
      }
    } catch (thrown) {
      this.#error ??= { code: 'internal_error', message: (thrown as Error).message };
    }
    this.#flushThought();
  }

  /** Thinking goes out whole, one working-status `thought` step per stretch of it (ACP's thought chunks). */
  #flushThought(): void {
    if (this.#thought) this.#ask.publisher.step('thought', { text: this.#thought });
    this.#thought = '';
  }

  async #take(event: AgentOutput): Promise<void> {
    const { publisher } = this.#ask;
    if (event.type === 'thought-delta') {
      this.#thought += event.text;
      return;
    }
    this.#flushThought();
    switch (event.type) {
      case 'text-delta': {
        const text = this.#text.show(event.text);
        this.#answer += text;
        publisher.appendText(text);
        break;
      }
      case 'tool-call':
        publisher.step('tool-call', { toolCallId: event.toolCallId, toolName: event.toolName, title: event.title, kind: event.kind, status: event.status, input: event.input ?? null });
        break;
      case 'tool-call-update': {
        const shown = event.content?.flatMap((part) => (part.type === 'text' ? [part.text] : part.type === 'diff' ? [`diff ${part.path}`] : []));
        publisher.step('tool-call-update', {
          toolCallId: event.toolCallId,
          ...(event.status ? { status: event.status } : {}),
          ...(event.title ? { title: event.title } : {}),
          ...(shown && shown.length > 0 ? { output: shown.join('\n') } : {}),
        });
        if (event.status !== 'failed') for (const artifact of this.#files.record(event.content)) publisher.artifact(artifact);
        break;
      }
      case 'permission-request':
        event.respond(await askPeer(event, this.#ask));
        break;
      case 'plan':
        publisher.step('plan', { entries: event.entries });
        break;
      case 'notice':
        if (event.level !== 'info') publisher.step('notice', { level: event.level, message: event.message });
        break;
      case 'turn-end':
        this.#stopReason = event.stopReason;
        this.#text.step();
        break;
      case 'error':
        // The first failure is the task's: a later turn of it does not hide it.
        this.#error ??= event.error;
        break;
      default:
        break;
    }
  }
}
