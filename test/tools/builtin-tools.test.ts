import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/tools/builtin-tools.js';
import { createWorkspace, runTool, textOf, toolContext } from './tool-test-helpers.js';

describe('createBuiltinTools', () => {
  it('returns the local tools with JSON schemas and snake_case arguments', () => {
    const tools = createBuiltinTools();
    expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'bash_output', 'bash_kill']);
    for (const tool of tools) {
      expect(tool.source).toBe('local');
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.$schema).toBeUndefined();
      expect(tool.description.length).toBeGreaterThan(20);
      for (const key of Object.keys(tool.inputSchema.properties as object)) expect(key).toMatch(/^[a-z_]+$/);
    }
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.risk]))).toEqual({
      read_file: 'read',
      write_file: 'write',
      edit_file: 'write',
      glob: 'read',
      grep: 'read',
      bash: 'external',
      // They touch only background commands the session started itself.
      bash_output: 'read',
      bash_kill: 'read',
    });
  });

  it('passes the bash limits through', async () => {
    const ws = await createWorkspace();
    try {
      const bash = createBuiltinTools({ bash: { timeoutMs: 150, maxOutputBytes: 10 } }).find((tool) => tool.name === 'bash');
      if (!bash) throw new Error('bash tool missing');
      const timedOut = await runTool(bash, { command: 'sleep 10' }, toolContext(ws.runtime));
      expect(textOf(timedOut)).toContain('timed out after 150 ms');
      const long = await runTool(bash, { command: 'seq 1 100' }, toolContext(ws.runtime));
      expect(textOf(long)).toContain('(output truncated: showing the last 10 bytes)');
    } finally {
      await ws.cleanup();
    }
  });
});
