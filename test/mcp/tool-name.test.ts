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
});
