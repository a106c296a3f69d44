import type { AgentOutput } from '../contracts/agent-output.js';
import type { SessionEventFeed } from '../storage/session-event-feed.js';
import type { SessionReplay } from './agent.js';
import { agentOutputsFromRecords } from './session-record-mapping.js';

/** A follower reads again at least this often: a lost notification, or a writer that died, is noticed. */
export const FOLLOW_POLL_MS = 1_000;

/**
 * A session's history read through the store's feed, and (while its last turn has not ended)
 * that turn's later events as the writer stores them, until a `turn-end` or `error` is stored,
 * the writer's lease lapses, or `signal` aborts. The watch starts before the history is read
 * and every read continues from the last sequence read: no event is lost or sent twice.
 */
export async function followSession(feed: SessionEventFeed, sessionId: string, signal: AbortSignal): Promise<SessionReplay> {
  const wake = new Wake();
  const unwatch = await feed.watch(sessionId, () => wake.set());
  try {
    const first = await feed.eventsAfter(sessionId, -1);
    const history = agentOutputsFromRecords(first.events);
    if (!turnRunning(history) || signal.aborted) {
      unwatch();
      return { history };
    }
    return { history, live: follow(feed, sessionId, first.lastSeq, { wake, unwatch, signal }) };
  } catch (error) {
    unwatch();
    throw error;
  }
}

/** Whether the history's last prompt has no end yet (a steered prompt inside a turn counts as the same turn). */
export function turnRunning(history: readonly AgentOutput[]): boolean {
  const lastPrompt = history.findLastIndex((event) => event.type === 'user-message');
  return lastPrompt >= 0 && history.findLastIndex(endsTurn) < lastPrompt;
}

async function* follow(
  feed: SessionEventFeed,
  sessionId: string,
  fromSeq: number,
  { wake, unwatch, signal }: { wake: Wake; unwatch: () => void; signal: AbortSignal },
): AsyncGenerator<AgentOutput[]> {
  try {
    let seq = fromSeq;
    while (!signal.aborted) {
      const notified = await wake.wait(FOLLOW_POLL_MS, signal);
      if (signal.aborted) return;
      const next = await feed.eventsAfter(sessionId, seq);
      seq = next.lastSeq;
      const events = agentOutputsFromRecords(next.events);
      const end = events.findIndex(endsTurn);
      // Events after the turn's end belong to a later turn: not this follow's.
      if (events.length > 0) yield end >= 0 ? events.slice(0, end + 1) : events;
      if (end >= 0) return;
      if (!notified && events.length === 0 && !(await feed.writerAlive(sessionId))) return;
    }
  } finally {
    unwatch();
  }
}

function endsTurn(event: AgentOutput): boolean {
  return event.type === 'turn-end' || event.type === 'error';
}

/** A flag set by notifications and awaited by the follower; a notification while it reads is kept for the next wait. */
class Wake {
  #set = false;
  #resolve: (() => void) | undefined;

  set(): void {
    this.#set = true;
    this.#resolve?.();
  }

  /** True when notified, false when `timeoutMs` passed (or `signal` aborted) first. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (this.#set || signal.aborted) return Promise.resolve(this.#take());
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#resolve = undefined;
        resolve(this.#take());
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.#resolve = done;
    });
  }

  #take(): boolean {
    const was = this.#set;
    this.#set = false;
    return was;
  }
}
