import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventRecorder } from '../src/agent/event-recorder.js';
import type { LiveSession } from '../src/agent/session-manager.js';
import { SessionStore } from '../src/storage/session-store.js';

const PIECE = 2 * 1024;

/**
 * Persisting a streamed reply as the agent does (the event recorder: text merged per flush,
 * each flush one transaction that also extends the session's stream draft), into a real
 * SQLite file, in 2 KB pieces: the whole time and the longest single flush (how long every
 * other request waits behind it). A run stops at `budgetMs` and reports how far it got, so a
 * quadratic store cannot stall the suite (BENCH_STREAM_BUDGET_MS, default 300 s).
 */
export async function benchStreamPersistence(budgetMs = Number(process.env.BENCH_STREAM_BUDGET_MS ?? 300_000)): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const megabytes of [5, 50]) {
    const run = persistReply(megabytes * 1024 * 1024, budgetMs);
    result[`persist${megabytes}MbMs`] = run.ms;
    result[`persist${megabytes}MbLongestFlushMs`] = run.longestFlushMs;
    result[`persist${megabytes}MbPersistedMb`] = Math.round((run.persisted / 1024 / 1024) * 10) / 10;
  }
  return result;
}

function persistReply(bytes: number, budgetMs: number): { ms: number; longestFlushMs: number; persisted: number } {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-bench-stream-'));
  const store = new SessionStore(join(dir, 'state.db'));
  try {
    const sessionId = 'bench';
    store.createSession({ sessionId, cwd: dir });
    const recorder = new EventRecorder({ info: { sessionId }, store } as unknown as LiveSession);
    const piece = 'x'.repeat(PIECE - 1) + ' ';
    const start = performance.now();
    let longestFlushMs = 0;
    let persisted = 0;
    while (persisted < bytes && performance.now() - start < budgetMs) {
      const before = performance.now();
      recorder.record({ type: 'text-delta', sessionId, text: piece }); // 2 KB: each piece is one flush
      longestFlushMs = Math.max(longestFlushMs, performance.now() - before);
      persisted += PIECE;
    }
    recorder.flush();
    return { ms: Math.round(performance.now() - start), longestFlushMs: Math.round(longestFlushMs * 10) / 10, persisted };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
