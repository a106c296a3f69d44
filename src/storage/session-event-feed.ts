import type { LoadedEventRecord } from './session-records.js';

/**
 * Other processes' writes to a session as they commit, for a reader that does not hold the
 * session (a replica serving `session/load` of a turn another replica runs). A driver where
 * only one process writes a store (SQLite) has none: its turns reach readers in the process.
 */
export interface SessionEventFeed {
  /**
   * Calls `onChange` after each committed append of events to the session, by any process,
   * until the returned function is called. A lost notification connection is re-opened, and
   * every watcher is called once it is back (what it missed meanwhile is read by sequence).
   */
  watch(sessionId: string, onChange: () => void): Promise<() => void>;
  /** The stored events after `afterSeq` (-1: all), in order, and the last sequence read (`afterSeq` when none). */
  eventsAfter(sessionId: string, afterSeq: number): Promise<{ events: LoadedEventRecord[]; lastSeq: number }>;
  /** Whether a live process (this one included) holds the session's lease: someone may still write. */
  writerAlive(sessionId: string): Promise<boolean>;
}
