import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeListCursor, encodeListCursor } from '../../../src/adapters/acp/session-list-cursor.js';

describe('session/list cursors', () => {
  it('round-trip every position', () => {
    fc.assert(
      fc.property(fc.nat(), (offset) => {
        expect(decodeListCursor(encodeListCursor(offset))).toBe(offset);
      }),
    );
    expect(decodeListCursor(undefined)).toBe(0);
    expect(decodeListCursor(null)).toBe(0);
  });

  it('refuse anything the agent did not issue with -32602', () => {
    fc.assert(
      fc.property(fc.string(), (cursor) => {
        let issued = false;
        try {
          issued = encodeListCursor(decodeListCursor(cursor)) === cursor;
        } catch (error) {
          expect((error as { code?: number }).code).toBe(-32602);
          return;
        }
        expect(issued).toBe(true);
      }),
    );
    for (const cursor of ['1e9', '5.5', '0x10', '50', '']) expect(() => decodeListCursor(cursor)).toThrow();
  });
});
