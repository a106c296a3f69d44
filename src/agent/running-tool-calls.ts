import { PlaitedError } from '../errors/plaited-error.js';

/** Why one tool call could not be cancelled. */
export class ToolCallCancelError extends PlaitedError<'tool_call_not_cancellable'> {
  readonly sessionId: string;
  readonly toolCallId: string;
  /** `unknown`: no such call in the session; `final`: it already finished (or was cancelled). */
  readonly reason: 'unknown' | 'final';

  constructor(sessionId: string, toolCallId: string, reason: ToolCallCancelError['reason']) {
    super('tool_call_not_cancellable', reason === 'final' ? `Tool call ${toolCallId} has already finished` : `No running tool call ${toolCallId} in session ${sessionId}`);
    this.name = 'ToolCallCancelError';
    this.sessionId = sessionId;
    this.toolCallId = toolCallId;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is ToolCallCancelError {
    return error instanceof Error && error.name === 'ToolCallCancelError';
  }
}

/** One running call's handle: its own signal (aborted by the turn or by a cancel of this call alone). */
export interface RunningToolCall {
  readonly signal: AbortSignal;
  /** True when this call alone was cancelled (the turn goes on). */
  cancelled(): boolean;
  /** The call reached a final status: it can no longer be cancelled. */
  finish(): void;
}

/** Finished ids remembered per session, so a late cancel is told "already final", not "unknown". */
const FINISHED_KEPT = 200;

/**
 * The agent's running tool calls, by session and call id, each with an AbortController linked to
 * its turn's signal. Cancelling one aborts that call only: the loop gives the model a "cancelled by
 * the user" result and the turn continues.
 */
export class RunningToolCalls {
  private readonly running = new Map<string, AbortController>();
  private readonly finished = new Map<string, string[]>();

  start(sessionId: string, toolCallId: string, turnSignal: AbortSignal): RunningToolCall {
    const controller = new AbortController();
    const key = keyOf(sessionId, toolCallId);
    this.running.set(key, controller);
    return {
      signal: AbortSignal.any([turnSignal, controller.signal]),
      cancelled: () => controller.signal.aborted && !turnSignal.aborted,
      finish: () => {
        if (this.running.get(key) !== controller) return;
        this.running.delete(key);
        const ids = this.finished.get(sessionId) ?? [];
        ids.push(toolCallId);
        if (ids.length > FINISHED_KEPT) ids.shift();
        this.finished.set(sessionId, ids);
      },
    };
  }

  isRunning(sessionId: string, toolCallId: string): boolean {
    return this.running.has(keyOf(sessionId, toolCallId));
  }

  /** Aborts one running call; throws `ToolCallCancelError` when it is unknown or already final. */
  cancel(sessionId: string, toolCallId: string): void {
    const key = keyOf(sessionId, toolCallId);
    const controller = this.running.get(key);
    if (!controller || controller.signal.aborted) {
      const final = Boolean(controller) || (this.finished.get(sessionId)?.includes(toolCallId) ?? false);
      throw new ToolCallCancelError(sessionId, toolCallId, final ? 'final' : 'unknown');
    }
    controller.abort(new Error('Cancelled by the user'));
  }

  /** Forgets a closed or deleted session's finished ids. */
  forget(sessionId: string): void {
    this.finished.delete(sessionId);
  }
}

function keyOf(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}
