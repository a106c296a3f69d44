import { describe, expect, it } from 'vitest';
import { mapCallToolResult } from '../../src/mcp/map-call-tool-result.js';

describe('mapCallToolResult', () => {
  it('names embedded resources and audio in text', () => {
    const result = mapCallToolResult({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'alpha' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(result.content).toEqual([
      { type: 'text', text: 'Resource <file:///a.txt>:\nalpha' },
      { type: 'text', text: '[binary resource <file:///b.bin> application/octet-stream, 3 bytes]' },
      { type: 'text', text: '[audio audio/wav, 6 bytes]' },
    ]);
  });

  it('shows structured content as JSON when the server sent no text, and keeps isError', () => {
    expect(mapCallToolResult({ content: [], structuredContent: { ok: false }, isError: true })).toEqual({
      content: [{ type: 'text', text: '{"ok":false}' }],
      isError: true,
      structured: { ok: false },
    });
    expect(mapCallToolResult({ content: [] })).toEqual({ content: [{ type: 'text', text: '(no output)' }] });
  });
});
