import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/storage/session-store.js';
import { migrateSessionSchema } from '../../src/storage/session-schema.js';
import { openSqliteDatabase } from '../../src/storage/sqlite/open-sqlite-database.js';
import type { StreamDraft } from '../../src/storage/stream-drafts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-drafts-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}

/** The draft a store recovers (and clears), as recoverInterruptedReply sees it. */
function recovered(store: SessionStore, sessionId: string): StreamDraft | undefined {
  let seen: StreamDraft | undefined;
  store.recoverDraft(sessionId, (draft) => {
    seen = draft;
    return { messages: [], events: [{ type: 'text-delta', sessionId, text: '' }] };
  });
  return seen;
}

describe('stream drafts', () => {
  it('appends each flush as a piece and assembles them, in order, on recovery', () => {
    const store = new SessionStore(stateFile());
    store.createSession({ sessionId: 's', cwd: '/p' });
    const pieces = Array.from({ length: 50 }, (_, i) => `piece ${i}; `);
    for (const [i, piece] of pieces.entries()) store.appendEvents('s', [{ type: 'text-delta', sessionId: 's', text: piece }], { text: piece, reasoning: i % 10 === 0 ? `r${i}` : '' });
    const draft = recovered(store, 's');
    expect(draft?.text).toBe(pieces.join(''));
    expect(draft?.reasoning).toBe('r0r10r20r30r40');
    expect(recovered(store, 's')).toBeUndefined();
    store.close();
  });

  it('a draft an older release left (schema version 3, one row) is recovered after the upgrade', () => {
    const file = stateFile();
    const db = openSqliteDatabase(file);
    migrateSessionSchema(db, file, 3);
    db.prepare("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('old', '/p', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')").run();
    db.prepare("INSERT INTO stream_drafts (session_id, text, reasoning, updated_at) VALUES ('old', 'half a reply', 'thinking', '2026-01-01T00:00:01.000Z')").run();
    db.close();

    const store = new SessionStore(file);
    store.appendEvents('old', [{ type: 'text-delta', sessionId: 'old', text: ' and more' }], { text: ' and more', reasoning: '' });
    expect(recovered(store, 'old')).toMatchObject({ text: 'half a reply and more', reasoning: 'thinking' });
    store.close();
  });
});
