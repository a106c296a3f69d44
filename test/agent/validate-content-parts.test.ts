import fc from 'fast-check';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ContentPart } from '../../src/contracts/agent-output.js';
import { repairStoredMessages } from '../../src/agent/repair-stored-messages.js';
import { isBase64, validateContentParts } from '../../src/agent/validate-content-parts.js';
import { sniffImageType } from '../../src/agent/image-format.js';

/** A real 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('sniffImageType', () => {
  it('knows the formats models take by their first bytes, and nothing else', () => {
    const b64 = (bytes: number[] | string) => Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes).toString('base64');
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(sniffImageType(b64('GIF89a\x01\x00'))).toBe('image/gif');
    expect(sniffImageType(b64('RIFF\x10\x00\x00\x00WEBPVP8 '))).toBe('image/webp');
    for (const other of [b64('hello'), 'AA==', b64('<svg xmlns="http://www.w3.org/2000/svg"/>'), b64('RIFF\x10\x00\x00\x00WAVEfmt '), b64([0x89, 0x50, 0x4e, 0x47])]) {
      expect(sniffImageType(other), other).toBeUndefined();
    }
  });
});

describe('validateContentParts', () => {
  it('accepts well-formed parts of every kind', () => {
    const parts: ContentPart[] = [
      { type: 'text', text: 'hi' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', uri: 'file:///a', text: 'x' },
      { type: 'resource', uri: 'file:///b', blob: 'AAAA', mimeType: 'application/octet-stream' },
      { type: 'resource_link', uri: 'file:///c', name: 'c' },
    ];
    expect(validateContentParts(parts)).toBeUndefined();
  });

  it('names the first bad part and field', () => {
    expect(validateContentParts([{ type: 'text', text: 'a' }, { type: 'image', data: '!!!not base64', mimeType: 'image/png' }])).toEqual({ path: 'prompt[1].data', reason: 'is not valid base64' });
    expect(validateContentParts([{ type: 'image', data: 'AAAA', mimeType: 'text/plain' }])?.path).toBe('prompt[0].mimeType');
    expect(validateContentParts([{ type: 'image', data: Buffer.from('hello').toString('base64'), mimeType: 'image/png' }])).toEqual({
      path: 'prompt[0].data',
      reason: expect.stringContaining('is not a image/png image'),
    });
    expect(validateContentParts([{ type: 'image', data: PNG, mimeType: 'image/svg+xml' }])?.path).toBe('prompt[0].mimeType');
    expect(validateContentParts([{ type: 'image', data: PNG, mimeType: 'IMAGE/PNG; name=x' }])).toBeUndefined();
    expect(validateContentParts([{ type: 'resource', uri: 'x', blob: 'a b' }])?.path).toBe('prompt[0].resource.blob');
    expect(validateContentParts([{ type: 'resource', uri: '' , text: 'x'}])?.path).toBe('prompt[0].resource.uri');
    expect(validateContentParts([{ type: 'resource_link', uri: 'x', name: '' }])?.path).toBe('prompt[0].name');
  });

  it('takes exactly what Buffer round-trips as base64', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(isBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
      }),
    );
    for (const bad of ['!!!', 'a', 'abcde', 'ab=c', 'a===', 'YQ==YQ==', ' YQ==']) expect(isBase64(bad), bad).toBe(false);
  });
});

describe('repairStoredMessages', () => {
  it('replaces undecodable attachments with a note and leaves everything else alone', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: '!!!not base64', mediaType: 'image/png' }] },
      { role: 'user', content: [{ type: 'image', image: 'AAAA', mediaType: 'image/png' }, { type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] },
      { role: 'assistant', content: 'ok' },
    ];
    const repaired = repairStoredMessages(messages);
    expect(repaired[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'text', text: expect.stringContaining('was removed') }] });
    expect(repaired[0]).toBe(messages[0]);
    expect(repaired[2]).toBe(messages[2]);
    expect(repaired[3]).toBe(messages[3]);
  });
});

describe('repairStoredMessages: calls without results', () => {
  it('gives every stored call that no tool message answers an error result, right after its tool messages', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'read_file', input: {} },
          { type: 'tool-call', toolCallId: 'b', toolName: 'glob', input: {} },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read_file', output: { type: 'text', value: 'ok' } }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'grep', input: {} }] },
      { role: 'user', content: 'next' },
    ];
    const repaired = repairStoredMessages(messages);
    expect(repaired.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'user']);
    expect(repaired[3]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'b', output: { type: 'error-text' } }] });
    expect(repaired[5]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c', output: { type: 'error-text' } }] });
    const whole: ModelMessage[] = messages.slice(0, 3).concat([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'glob', output: { type: 'text', value: 'ok' } }] }]);
    expect(repairStoredMessages(whole)).toEqual(whole);
  });
});
