import type { AgentOutput } from '../contracts/agent-output.js';
import type { AgentExtension } from './agent-extension.js';
import { noticeOf } from './agent-notices.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';

/**
 * The agent's extensions: the eager ones, and the late ones (`loadExtensions`) placed before
 * them once the first session starts. A failed late load is a notice, retried next time.
 */
export class ExtensionSet {
  readonly list: AgentExtension[];
  readonly #loadLate: (() => Promise<AgentExtension[]>) | undefined;
  #lateLoaded: boolean;

  constructor(extensions: readonly AgentExtension[], loadExtensions?: () => Promise<AgentExtension[]>) {
    this.list = [...extensions];
    this.#loadLate = loadExtensions ? memoizeUntilFailure(loadExtensions) : undefined;
    this.#lateLoaded = !loadExtensions;
  }

  /** Makes sure the late extensions are in `list` before any hook runs for `sessionId`. */
  async ensure(sessionId: string, emit: (event: AgentOutput) => void): Promise<void> {
    if (this.#lateLoaded || !this.#loadLate) return;
    try {
      const loaded = await this.#loadLate();
      if (!this.#lateLoaded) this.list.unshift(...loaded);
      this.#lateLoaded = true;
    } catch (error) {
      emit(noticeOf(sessionId, 'extensions', 'load', error));
    }
  }

  /** Closes every extension; one that fails to close does not keep the others open. */
  async closeAll(): Promise<void> {
    for (const extension of this.list) await Promise.resolve(extension.close?.()).catch(() => undefined);
  }
}
