import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../../src/tools/output-buffer.js';

describe('OutputBuffer', () => {
  it('keeps everything under the cap', () => {
    const buffer = new OutputBuffer({ maxBytes: 100, keep: 'tail' });
    buffer.push(Buffer.from('abc'));
    buffer.push(Buffer.from('def'));
    expect(buffer.text()).toBe('abcdef');
    expect(buffer.truncated).toBe(false);
  });

  it('tail: keeps the last bytes across many chunks', () => {
    const buffer = new OutputBuffer({ maxBytes: 5, keep: 'tail' });
    for (const chunk of ['012', '345', '678', '9']) buffer.push(Buffer.from(chunk));
    expect(buffer.text()).toBe('56789');
    expect(buffer.truncated).toBe(true);
    expect(buffer.full).toBe(false);
  });

  it('tail: never starts inside a multi-byte character', () => {
    const buffer = new OutputBuffer({ maxBytes: 4, keep: 'tail' });
    buffer.push(Buffer.from('aé€'));
    // é€ is 2 + 3 bytes; the last 4 bytes start inside é, so only € survives.
    expect(buffer.text()).toBe('€');
  });

  it('head: keeps the first bytes, reports full, and never ends inside a character', () => {
    const buffer = new OutputBuffer({ maxBytes: 4, keep: 'head' });
    buffer.push(Buffer.from('ab'));
    expect(buffer.full).toBe(false);
    buffer.push(Buffer.from('c€d'));
    expect(buffer.full).toBe(true);
    expect(buffer.truncated).toBe(true);
    expect(buffer.text()).toBe('abc');
  });

  it('rejects a negative cap', () => {
    expect(() => new OutputBuffer({ maxBytes: -1, keep: 'tail' })).toThrow(RangeError);
  });
});
