import { spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGrepTool } from '../../src/tools/grep-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

const grepTool = createGrepTool();
let ws: Workspace;

beforeAll(() => {
  const rg = spawnSync('rg', ['--version']);
  if (rg.error || rg.status !== 0) {
    throw new Error('ripgrep (rg) is required by the grep tool tests but is not installed: apt-get install -y ripgrep');
  }
});
beforeEach(async () => {
  ws = await createWorkspace();
  const files: Record<string, string> = {
    'src/a.ts': 'import x from "y";\nconst needle = 1;\nexport default needle;\n',
    'src/b.js': 'line one\nline two\nNEEDLE upper\nline four\nline five\n',
    'docs/readme.md': 'no match here\n',
    'node_modules/pkg/index.js': 'const needle = "vendored";\n',
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws.cwd, file)), { recursive: true });
    await writeFile(path.join(ws.cwd, file), content);
  }
});
afterEach(async () => {
  await ws.cleanup();
});

describe('grep', () => {
  it('is a read tool of kind search', () => {
    expect(grepTool).toMatchObject({ name: 'grep', risk: 'read', kind: 'search' });
  });

  it('finds matches grouped by file with line numbers, skipping node_modules', async () => {
    const result = await runTool(grepTool, { pattern: 'needle' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(
      ['src/a.ts', '     2: const needle = 1;', '     3: export default needle;', '', '2 matching lines in 1 file.'].join('\n'),
    );
  });

  it('supports case_insensitive, glob and context', async () => {
    const result = await runTool(
      grepTool,
      { pattern: 'needle', case_insensitive: true, glob: '*.js', context: 1 },
      toolContext(ws.runtime),
    );
    expect(textOf(result)).toBe(
      ['src/b.js', '     2- line two', '     3: NEEDLE upper', '     4- line four', '', '1 matching line in 1 file.'].join('\n'),
    );
  });

  it('takes patterns literally as arguments, not shell code or options', async () => {
    await writeFile(path.join(ws.cwd, 'dash.txt'), '--files\n$(touch pwned)\n');
    const dashed = await runTool(grepTool, { pattern: '--files' }, toolContext(ws.runtime));
    expect(textOf(dashed)).toContain('dash.txt\n     1: --files');
    const shelly = await runTool(grepTool, { pattern: '$(touch pwned)', path: 'dash.txt' }, toolContext(ws.runtime));
    expect(shelly.isError).toBeFalsy();
    expect(spawnSync('test', ['-e', path.join(ws.cwd, 'pwned')]).status).toBe(1);
  });

  it('caps results with a note', async () => {
    await writeFile(path.join(ws.cwd, 'many.txt'), Array.from({ length: 50 }, (_, i) => `hit ${i}`).join('\n'));
    const text = textOf(await runTool(grepTool, { pattern: '^hit', max_results: 10 }, toolContext(ws.runtime)));
    expect(text).toContain('\n    10: hit 9\n');
    expect(text).not.toContain('hit 10');
    expect(text).toContain('10 matching lines in 1 file.');
    expect(text).toContain('results capped at 10 matching lines; more exist');
  });

  it('says when nothing matches, and errors on an invalid regex', async () => {
    const none = await runTool(grepTool, { pattern: 'zzzz' }, toolContext(ws.runtime));
    expect(none.isError).toBeFalsy();
    expect(textOf(none)).toBe('No matches for "zzzz" in ..');
    const bad = await runTool(grepTool, { pattern: '(unclosed' }, toolContext(ws.runtime));
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('ripgrep failed');
    expect(textOf(bad)).toContain('regex');
  });

  it('gives a clear error when rg is not installed', async () => {
    const missing = createGrepTool({ rgPath: path.join(ws.cwd, 'no-such-rg') });
    const result = await runTool(missing, { pattern: 'x' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('grep needs ripgrep');
    expect(textOf(result)).toContain('install');
  });

  it('refuses paths outside the workspace and does not follow symlinks out of it', async () => {
    await writeFile(path.join(ws.outside, 'secret.txt'), 'needle outside\n');
    await symlink(ws.outside, path.join(ws.cwd, 'src', 'out-link'));
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.cwd, 'secret-link.txt'));
    for (const target of [path.relative(ws.cwd, ws.outside), '/etc', '/etc/passwd', 'src/out-link', 'secret-link.txt']) {
      const result = await runTool(grepTool, { pattern: 'needle', path: target }, toolContext(ws.runtime));
      expect(result.isError, target).toBe(true);
      expect(textOf(result), target).toContain('outside the workspace');
    }
    const whole = textOf(await runTool(grepTool, { pattern: 'needle outside' }, toolContext(ws.runtime)));
    expect(whole).toBe('No matches for "needle outside" in ..');
  });

  it('searches an allowed extra root', async () => {
    await writeFile(path.join(ws.outside, 'shared.txt'), 'needle shared\n');
    const result = await runTool(
      grepTool,
      { pattern: 'needle', path: ws.outside },
      toolContext(ws.runtime, { allowedRoots: [ws.outside] }),
    );
    expect(textOf(result)).toBe([path.join(ws.outside, 'shared.txt'), '     1: needle shared', '', '1 matching line in 1 file.'].join('\n'));
  });
});
