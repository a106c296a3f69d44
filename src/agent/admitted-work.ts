/**
 * Work the agent let in before it began to stop (a prompt's admission, a session request): each
 * opens sessions (takes leases) and reads the store over several awaits, so `stop` waits for it
 * before it closes sessions and stores. Without the wait, a request let in just before a SIGTERM
 * wrote to a closed store and its client heard an internal error instead of `agent_draining`.
 */
export class AdmittedWork {
  readonly #pending = new Set<Promise<void>>();

  /** Runs `work`, counted until it settles. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
    return promise;
  }

  /** Resolves once nothing counted is running (work let in meanwhile included). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }
}
