import type { Pool } from 'pg';
import type { SessionStorageSettings } from '../session-storage.js';

/** Per-session settings as JSON values by key (`SessionSettings` on PostgreSQL); rows go with their session. */
export function postgresSettings(pool: Pool): SessionStorageSettings {
  return {
    async get(sessionId) {
      const { rows } = await pool.query<{ key: string; value: string }>('SELECT key, value FROM session_settings WHERE session_id = $1', [sessionId]);
      const settings: Record<string, unknown> = {};
      for (const row of rows) {
        try {
          settings[row.key] = JSON.parse(row.value);
        } catch {
          // A hand-edited row must not make the session unloadable.
        }
      }
      return settings;
    },
    async set(sessionId, key, value) {
      await pool.query(
        'INSERT INTO session_settings (session_id, key, value) VALUES ($1, $2, $3) ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value',
        [sessionId, key, JSON.stringify(value)],
      );
    },
  };
}
