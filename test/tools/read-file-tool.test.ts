import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/tools/read-file-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const numbered = (n: number, text: string) => `${String(n).padStart(6)}\t${text}`;

describe('read_file', () => {
  it('describes itself as a read tool with a title and locations', () => {
    expect(readFileTool.name).toBe('read_file');
    expect(readFileTool.risk).toBe('read');
    expect(readFileTool.kind).toBe('read');
    expect(readFileTool.title?.({ path: 'src/x.ts' })).toBe('Read src/x.ts');
    expect(readFileTool.locations?.({ path: 'src/x.ts', offset: 5 }, '/w')).toEqual([{ path: '/w/src/x.ts', line: 5 }]);
    expect(readFileTool.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
  });

  it('returns lines numbered cat -n style', async () => {
    await writeFile(path.join(ws.cwd, 'a.txt'), 'alpha\nbeta\r\ngamma\n');
    const result = await runTool(readFileTool, { path: 'a.txt' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe([numbered(1, 'alpha'), numbered(2, 'beta'), numbered(3, 'gamma')].join('\n'));
    expect(result.locations).toEqual([{ path: path.join(ws.cwd, 'a.txt'), line: 1 }]);
  });

  it('pages with offset and limit and says how to continue', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`);
    await writeFile(path.join(ws.cwd, 'big.txt'), lines.join('\n') + '\n');
    const first = textOf(await runTool(readFileTool, { path: 'big.txt' }, toolContext(ws.runtime)));
    expect(first.split('\n')[1999]).toBe(numbered(2000, 'line 2000'));
    expect(first).toContain('… 1000 more lines; use offset=2001 to continue.');

    const page = await runTool(readFileTool, { path: 'big.txt', offset: 10, limit: 3 }, toolContext(ws.runtime));
    expect(textOf(page)).toBe(
      [numbered(10, 'line 10'), numbered(11, 'line 11'), numbered(12, 'line 12'), '… 2988 more lines; use offset=13 to continue.'].join('\n'),
    );
    expect(page.locations).toEqual([{ path: path.join(ws.cwd, 'big.txt'), line: 10 }]);

    const last = textOf(await runTool(readFileTool, { path: 'big.txt', offset: 2999 }, toolContext(ws.runtime)));
    expect(last).toBe([numbered(2999, 'line 2999'), numbered(3000, 'line 3000')].join('\n'));
  });

  it('cuts lines over 2000 characters', async () => {
    await writeFile(path.join(ws.cwd, 'min.js'), 'x'.repeat(5000) + '\nshort\n');
    const text = textOf(await runTool(readFileTool, { path: 'min.js' }, toolContext(ws.runtime)));
    const [first, second] = text.split('\n');
    expect(first).toBe(`${numbered(1, 'x'.repeat(2000))}… [line cut: 5000 characters]`);
    expect(second).toBe(numbered(2, 'short'));
  });

  it('errors for an offset past the end, a missing file, a folder and a binary file', async () => {
    await writeFile(path.join(ws.cwd, 'two.txt'), 'a\nb\n');
    const past = await runTool(readFileTool, { path: 'two.txt', offset: 5 }, toolContext(ws.runtime));
    expect(past.isError).toBe(true);
    expect(textOf(past)).toBe('two.txt has 2 lines; offset 5 is past the end.');

    const missing = await runTool(readFileTool, { path: 'nope.txt' }, toolContext(ws.runtime));
    expect(missing).toMatchObject({ isError: true });
    expect(textOf(missing)).toBe('File not found: nope.txt');

    await mkdir(path.join(ws.cwd, 'dir'));
    const folder = await runTool(readFileTool, { path: 'dir' }, toolContext(ws.runtime));
    expect(folder.isError).toBe(true);
    expect(textOf(folder)).toContain('Cannot read dir');

    await writeFile(path.join(ws.cwd, 'bin.dat'), Buffer.from([0x41, 0x00, 0x42]));
    const binary = await runTool(readFileTool, { path: 'bin.dat' }, toolContext(ws.runtime));
    expect(binary.isError).toBe(true);
    expect(textOf(binary)).toContain('binary');
  });

  it('stops a window at the 256 KB cap and says how to read the next one', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `${String(i + 1).padStart(4, '0')}${'y'.repeat(996)}`);
    await writeFile(path.join(ws.cwd, 'wide.txt'), lines.join('\n') + '\n');
    const first = textOf(await runTool(readFileTool, { path: 'wide.txt' }, toolContext(ws.runtime)));
    const shown = first.split('\n');
    // 262 lines of 1,000 bytes fit in 256 KB (262,144 bytes).
    expect(shown).toHaveLength(263);
    expect(shown[261]).toBe(numbered(262, lines[261]!));
    expect(shown[262]).toBe("… the window stopped at read_file's 256 KB cap (1738 more lines); use offset=263 to continue.");
    const next = textOf(await runTool(readFileTool, { path: 'wide.txt', offset: 263, limit: 2 }, toolContext(ws.runtime)));
    expect(next).toBe([numbered(263, lines[262]!), numbered(264, lines[263]!), '… 1736 more lines; use offset=265 to continue.'].join('\n'));
  });

  it('keeps a line longer than the cap to its start, and pages past it', async () => {
    await writeFile(path.join(ws.cwd, 'one-line.txt'), `${'z'.repeat(400_000)}\nafter\n`);
    const text = textOf(await runTool(readFileTool, { path: 'one-line.txt', limit: 1 }, toolContext(ws.runtime)));
    expect(text).toBe(`${numbered(1, 'z'.repeat(2000))}… [line cut: over 256 KB]\n… 1 more lines; use offset=2 to continue.`);
    expect(textOf(await runTool(readFileTool, { path: 'one-line.txt', offset: 2 }, toolContext(ws.runtime)))).toBe(numbered(2, 'after'));
  });

  it('reads a window of a file larger than it counts, and names its size', async () => {
    const file = path.join(ws.cwd, 'huge.log');
    await writeFile(file, Array.from({ length: 3000 }, (_, i) => `entry ${i + 1}`).join('\n') + '\n');
    await truncate(file, 40 * 1024 * 1024); // sparse: 40 MB, mostly NULs after the text
    const text = textOf(await runTool(readFileTool, { path: 'huge.log', offset: 2999, limit: 2 }, toolContext(ws.runtime)));
    expect(text).toBe([numbered(2999, 'entry 2999'), numbered(3000, 'entry 3000'), '… more lines follow (the file has 40.0 MB); use offset=3001 to continue.'].join('\n'));
  });

  it('says when a file is empty', async () => {
    await writeFile(path.join(ws.cwd, 'empty.txt'), '');
    const result = await runTool(readFileTool, { path: 'empty.txt' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('(empty.txt is empty)');
  });

  it('refuses paths outside the workspace as an error result, not a throw', async () => {
    await writeFile(path.join(ws.outside, 'secret.txt'), 'top secret');
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.cwd, 'innocent.txt'));
    const relativeOut = path.relative(ws.cwd, path.join(ws.outside, 'secret.txt'));
    for (const target of [relativeOut, '/etc/passwd', 'innocent.txt']) {
      const result = await runTool(readFileTool, { path: target }, toolContext(ws.runtime));
      expect(result.isError, target).toBe(true);
      expect(textOf(result), target).toContain('outside the workspace');
      expect(textOf(result)).not.toContain('top secret');
      expect(textOf(result)).not.toContain('root:');
    }
  });

  it('reads from an allowed extra root', async () => {
    await writeFile(path.join(ws.outside, 'shared.txt'), 'shared\n');
    const context = toolContext(ws.runtime, { allowedRoots: [ws.outside] });
    const result = await runTool(readFileTool, { path: path.join(ws.outside, 'shared.txt') }, context);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(numbered(1, 'shared'));
  });

  it('rejects bad arguments in validation', () => {
    expect(readFileTool.validate({}).ok).toBe(false);
    expect(readFileTool.validate({ path: 'a', offset: 0 }).ok).toBe(false);
    expect(readFileTool.validate({ path: 'a', extra: 1 }).ok).toBe(false);
  });
});
