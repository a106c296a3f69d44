import * as acp from '@agentclientprotocol/sdk';

/**
 * `session/list` cursors are opaque to clients: base64url of `{"v":1,"offset":N}`. Anything
 * this server did not issue (a bare number, "1e9", "0x10", garbage) is invalid params,
 * instead of whatever `parseInt` makes of it.
 */
export function encodeListCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ v: 1, offset })).toString('base64url');
}

export function decodeListCursor(cursor: string | null | undefined): number {
  if (cursor === undefined || cursor === null) return 0;
  const invalid = () => acp.RequestError.invalidParams({ cursor: String(cursor).slice(0, 200) }, 'cursor: not a cursor this agent issued (pass nextCursor back unchanged)');
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 256 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { v, offset } = (position ?? {}) as { v?: unknown; offset?: unknown };
  if (v !== 1 || typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw invalid();
  // Round-trips exactly: the same position written differently is not one we issued.
  if (encodeListCursor(offset) !== cursor) throw invalid();
  return offset;
}
