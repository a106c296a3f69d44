/** Longer than any call: the SDK's own timer is left out, the deadline below decides. */
export const NO_SDK_TIMEOUT = 2_147_483_647;

/**
 * The timeout of one `tools/call`: `ms` after the call, or after the server's last progress
 * report (`restart`). While `held()` (the server waits on an answer from the user: an
 * elicitation, a sampling question) it does not expire: a user who takes longer than the
 * timeout to answer must not find the call failed meanwhile. The SDK's timer cannot be held.
 */
export class ToolCallDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly held: () => boolean,
    private readonly onHeld: () => void,
  ) {}

  /** Aborts when the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  start(): void {
    this.arm();
  }

  /** A progress report: the call gets `ms` again. */
  restart(): void {
    if (!this.expired) this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.ms);
  }

  private fire(): void {
    if (this.held()) {
      this.onHeld();
      this.arm();
      return;
    }
    this.controller.abort();
  }
}
