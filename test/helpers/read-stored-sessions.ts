import pg from 'pg';

/** A message row as PostgreSQL holds it: role, its text parts joined, and the lease epoch it was written under. */
export interface StoredMessage {
  seq: number;
  role: string;
  text: string;
  epoch: number | null;
}

/** An event row: when and under which lease epoch it was written. */
export interface StoredEvent {
  seq: number;
  type: string;
  epoch: number | null;
  createdAt: string;
}

export interface StoredSessionRecord {
  messages: StoredMessage[];
  events: StoredEvent[];
  /** `sessions.lease_epoch`: how many times the session's lease was taken. */
  leaseEpoch: number;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => typeof part === 'object' && part !== null && part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/** Reads the sessions' messages and events straight from the database, as any replica would find them. */
export async function readStoredSessions(url: string, sessionIds: readonly string[]): Promise<Map<string, StoredSessionRecord>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sessions = await client.query<{ id: string; lease_epoch: number }>('SELECT id, lease_epoch FROM sessions WHERE id = ANY($1)', [sessionIds]);
    const messages = await client.query<{ session_id: string; seq: number; message: string; lease_epoch: number | null }>(
      'SELECT session_id, seq, message, lease_epoch FROM messages WHERE session_id = ANY($1) ORDER BY session_id, seq',
      [sessionIds],
    );
    const events = await client.query<{ session_id: string; seq: number; type: string; lease_epoch: number | null; created_at: string }>(
      'SELECT session_id, seq, type, lease_epoch, created_at FROM events WHERE session_id = ANY($1) ORDER BY session_id, seq',
      [sessionIds],
    );
    const records = new Map<string, StoredSessionRecord>(sessions.rows.map((row) => [row.id, { messages: [], events: [], leaseEpoch: row.lease_epoch }]));
    for (const row of messages.rows) {
      const message = JSON.parse(row.message) as { role: string; content: unknown };
      records.get(row.session_id)!.messages.push({ seq: row.seq, role: message.role, text: textOf(message.content), epoch: row.lease_epoch });
    }
    for (const row of events.rows) {
      records.get(row.session_id)!.events.push({ seq: row.seq, type: row.type, epoch: row.lease_epoch, createdAt: row.created_at });
    }
    return records;
  } finally {
    await client.end();
  }
}

/** The streamed text a session has in its draft right now (a reply still being written). */
export async function storedDraftText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ text: string }>('SELECT string_agg(text, \'\' ORDER BY session_id, seq) AS text FROM stream_draft_chunks');
    return rows[0]?.text ?? '';
  } finally {
    await client.end();
  }
}
