import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedLineReader } from '../../../src/adapters/json-rpc/bounded-line-reader.js';
import { inspectJsonRpcText, inspectJsonRpcValue } from '../../../src/adapters/json-rpc/inspect-json-rpc.js';
import { textNestsDeeperThan, valueNestsDeeperThan } from '../../../src/adapters/json-rpc/json-nesting-depth.js';
import { jsonRpcLimits } from '../../../src/adapters/json-rpc/json-rpc-limits.js';
import { recoverJsonRpcId } from '../../../src/adapters/json-rpc/recover-json-rpc-id.js';

const limits = jsonRpcLimits({ maxMessageBytes: 1024, maxDepth: 8 });

describe('BoundedLineReader', () => {
  it('splits lines across chunks, tolerates CRLF, and flushes a last line without newline', () => {
    const reader = new BoundedLineReader(100);
    expect(reader.push(Buffer.from('{"a"'))).toEqual([]);
    expect(reader.push(Buffer.from(':1}\r\n{"b":2}\n{"c"'))).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }]);
    expect(reader.flush()).toEqual({ line: '{"c"' });
  });

  it('skips a line over the limit as it streams, reports it once with its head, and reads the next line', () => {
    const reader = new BoundedLineReader(16);
    const events = [...reader.push(Buffer.from('{"id":7,"x":"')), ...reader.push(Buffer.from('y'.repeat(100))), ...reader.push(Buffer.from('"}\n{"ok":1}\n'))];
    expect(events).toEqual([{ oversized: { bytes: 115, head: expect.stringContaining('{"id":7') } }, { line: '{"ok":1}' }]);
  });

  it('never loses or invents bytes of lines under the limit, however they are chunked', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }).map((text) => text.replace(/[\n\r]/g, '')), { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }), (lines, cuts) => {
        const text = lines.map((line) => `${line}\n`).join('');
        const bytes = Buffer.from(text);
        const reader = new BoundedLineReader(1_000);
        const got: string[] = [];
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const size = cuts[i % cuts.length]!;
          for (const event of reader.push(bytes.subarray(at, at + size))) if ('line' in event) got.push(event.line);
          at += size;
        }
        expect(got).toEqual(lines.filter((line) => line.length > 0));
      }),
    );
  });
});

describe('recoverJsonRpcId', () => {
  it('finds a top-level string or number id, and nothing nested, cut off or invalid', () => {
    expect(recoverJsonRpcId('{"jsonrpc":"2.0","id":"abc","method":"x","params":{"f":"yyy')).toBe('abc');
    expect(recoverJsonRpcId('{"id": 42, "method":"x"')).toBe(42);
    expect(recoverJsonRpcId('{"params":{"id":5},"id":"top"')).toBe('top');
    expect(recoverJsonRpcId('{"params":{"id":5,"x":"yyyy')).toBeNull();
    expect(recoverJsonRpcId('{"id":{"a":1},"method":"x"}')).toBeNull();
    expect(recoverJsonRpcId('{"id":12')).toBeNull();
    expect(recoverJsonRpcId('{"key":"has \\"id\\": 3","id":"real"')).toBe('real');
    expect(recoverJsonRpcId('not json')).toBeNull();
  });
});

describe('nesting depth', () => {
  it('counts brackets outside strings only, for text and for values', () => {
    expect(textNestsDeeperThan('[[[[1]]]]', 4)).toBe(false);
    expect(textNestsDeeperThan('[[[[[1]]]]]', 4)).toBe(true);
    expect(textNestsDeeperThan('{"a":"[[[[[[[[[["}', 2)).toBe(false);
    expect(textNestsDeeperThan('{"a":"\\"[[[[[[["}', 2)).toBe(false);
    expect(valueNestsDeeperThan([[[[1]]]], 4)).toBe(false);
    expect(valueNestsDeeperThan([[[[[1]]]]], 4)).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(valueNestsDeeperThan(deep, 128)).toBe(true);
  });
});

describe('inspectJsonRpcText', () => {
  it('accepts requests, notifications and responses', () => {
    expect(inspectJsonRpcText('{"jsonrpc":"2.0","id":1,"method":"a","params":{}}', limits)).toHaveProperty('accept');
    expect(inspectJsonRpcText('{"jsonrpc":"2.0","method":"a"}', limits)).toHaveProperty('accept');
    expect(inspectJsonRpcText('{"jsonrpc":"2.0","id":"x","result":{}}', limits)).toHaveProperty('accept');
  });

  it('answers invalid envelopes with -32600 and the id when it is a valid one', () => {
    const reply = (text: string) => (inspectJsonRpcText(text, limits) as { reply: { id: unknown; error: { code: number } } }).reply;
    expect(reply('{"jsonrpc":"1.0","id":"a","method":"m"}')).toMatchObject({ id: 'a', error: { code: -32600 } });
    expect(reply('{"id":3,"method":"m"}')).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(reply('{"jsonrpc":"2.0","id":"b","method":7}')).toMatchObject({ id: 'b', error: { code: -32600 } });
    expect(reply('{"jsonrpc":"2.0","id":{"x":1},"method":"m"}')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(reply('{"jsonrpc":"2.0","id":"c"}')).toMatchObject({ id: 'c', error: { code: -32600 } });
    expect(reply('{"jsonrpc":"2.0","id":"d","method":"m","params":5}')).toMatchObject({ id: 'd', error: { code: -32600 } });
    expect(reply('{"jsonrpc":')).toMatchObject({ id: null, error: { code: -32700 } });
    expect(reply('[1,2,3,4,5,6,7,8,9]')).toHaveLength(9);
    expect(reply('[]')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(reply(`{"jsonrpc":"2.0","id":"deep","method":"m","params":${'['.repeat(20)}${']'.repeat(20)}}`)).toMatchObject({ id: 'deep', error: { code: -32600 } });
    expect(reply(`{"jsonrpc":"2.0","id":"big","method":"m","params":{"x":"${'z'.repeat(2000)}"}}`)).toMatchObject({ id: 'big', error: { code: -32600, data: { maxMessageBytes: 1024 } } });
  });

  it('never throws, and answers with a JSON-RPC error whenever it refuses', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((value) => JSON.stringify(value))), (text) => {
        const intake = inspectJsonRpcText(text, limits);
        if ('reply' in intake) {
          for (const reply of [intake.reply ?? []].flat()) expect(reply).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
        } else expect(typeof intake.accept).toBe('object');
      }),
    );
  });

  it('treats an already parsed value the same way', () => {
    expect(inspectJsonRpcValue({ jsonrpc: '2.0', id: 1, method: 5 }, limits)).toMatchObject({ reply: { id: 1, error: { code: -32600 } } });
  });
});
