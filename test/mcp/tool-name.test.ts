import { describe, expect, it } from 'vitest';
import { mcpToolName, mcpToolPrefix } from '../../src/mcp/tool-name.js';

describe('mcpToolName', () => {
  it('joins server and tool as mcp__<server>__<tool>', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
  });

  it('replaces every non-alphanumeric character with _', () => {
    expect(mcpToolName('my-server.v2', 'files/read file')).toBe('mcp__my_server_v2__files_read_file');
    expect(mcpToolName('ünï', 'tool')).toBe('mcp___n___tool');
    expect(mcpToolPrefix('a.b')).toBe('mcp__a_b__');
  });

  it('cuts a name over 64 characters to exactly 64, ending in a hash of the original: deterministic and distinct', () => {
    const a = mcpToolName('srv', `${'x'.repeat(9_999)}a`);
    const b = mcpToolName('srv', `${'x'.repeat(9_999)}b`);
    expect(a).toMatch(/^mcp__srv__x+_[0-9a-f]{10}$/);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(mcpToolName('srv', `${'x'.repeat(9_999)}a`)).toBe(a);
    expect(mcpToolName('srv', 'x'.repeat(54))).toBe(`mcp__srv__${'x'.repeat(54)}`);
  });

  it('keeps a long server id prefix short and shared by all its tools, so a policy glob on the prefix still works', () => {
    const server = 's'.repeat(200);
    const prefix = mcpToolPrefix(server);
    expect(prefix.length).toBeLessThanOrEqual(39);
    for (const tool of ['read', 'y'.repeat(500)]) {
      const name = mcpToolName(server, tool);
      expect(name.startsWith(prefix)).toBe(true);
      expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
  });
});
