import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const source = ['function add(a, b) {', '  return a + b;', '}', '', 'const x = 1;', 'const y = 1;', ''].join('\n');

async function edit(args: Record<string, unknown>, allowedRoots: string[] = []) {
  return runTool(editFileTool, { path: 'src/math.js', ...args }, toolContext(ws.runtime, { allowedRoots }));
}

describe('edit_file', () => {
  beforeEach(async () => {
    await ws.runtime.writeFile(path.join(ws.cwd, 'src/math.js'), source);
  });

  it('is a write tool of kind edit titled after the path', () => {
    expect(editFileTool).toMatchObject({ name: 'edit_file', risk: 'write', kind: 'edit' });
    expect(editFileTool.title?.({ path: 'src/x.ts', old_string: 'a', new_string: 'b' })).toBe('Edit src/x.ts');
  });

  it('replaces a unique string; the model gets a unified diff, the display the whole texts', async () => {
    const result = await edit({ old_string: '  return a + b;', new_string: '  return a + b + 0;' });
    const file = path.join(ws.cwd, 'src/math.js');
    const expected = source.replace('  return a + b;', '  return a + b + 0;');
    expect(result.isError).toBeFalsy();
    expect(await readFile(file, 'utf8')).toBe(expected);
    const text = textOf(result);
    expect(text.split('\n')[0]).toBe('Edited src/math.js (1 replacement).');
    expect(text.split('\n').slice(1, 4)).toEqual(['--- src/math.js', '+++ src/math.js', '@@ -1,5 +1,5 @@']);
    expect(text).toContain('\n-  return a + b;\n+  return a + b + 0;\n');
    expect(result.display).toEqual([{ type: 'diff', path: file, oldText: source, newText: expected }]);
    expect(result.locations).toEqual([{ path: file, line: 2 }]);
  });

  it('refuses a string that occurs several times, saying how many, unless replace_all', async () => {
    const ambiguous = await edit({ old_string: '= 1;', new_string: '= 2;' });
    expect(ambiguous.isError).toBe(true);
    expect(textOf(ambiguous)).toContain('appears 2 times');
    expect(textOf(ambiguous)).toContain('replace_all');
    expect(await readFile(path.join(ws.cwd, 'src/math.js'), 'utf8')).toBe(source);

    const all = await edit({ old_string: '= 1;', new_string: '= 2;', replace_all: true });
    expect(all.isError).toBeFalsy();
    expect(textOf(all).split('\n')[0]).toBe('Edited src/math.js (2 replacements).');
    expect(await readFile(path.join(ws.cwd, 'src/math.js'), 'utf8')).toBe(source.replaceAll('= 1;', '= 2;'));
  });

  it('errors when old_string is missing, empty, or equal to new_string, leaving the file alone', async () => {
    const missing = await edit({ old_string: 'return a - b;', new_string: 'x' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('old_string was not found in src/math.js');

    const same = await edit({ old_string: 'const x', new_string: 'const x' });
    expect(same.isError).toBe(true);
    expect(textOf(same)).toContain('identical');

    const empty = await edit({ old_string: '', new_string: 'x' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toContain('write_file');
    expect(await readFile(path.join(ws.cwd, 'src/math.js'), 'utf8')).toBe(source);
  });

  it('errors for a missing file, pointing at write_file', async () => {
    const result = await runTool(editFileTool, { path: 'nope.js', old_string: 'a', new_string: 'b' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('File not found: nope.js (use write_file to create it).');
  });

  it('keeps $ patterns in new_string literal', async () => {
    await edit({ old_string: 'const x = 1;', new_string: "const x = '$&$1$$';" });
    expect(await readFile(path.join(ws.cwd, 'src/math.js'), 'utf8')).toContain("const x = '$&$1$$';");
  });

  it('matches LF old_string in a CRLF file and keeps CRLF endings', async () => {
    await writeFile(path.join(ws.cwd, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
    const result = await runTool(
      editFileTool,
      { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' },
      toolContext(ws.runtime),
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(path.join(ws.cwd, 'crlf.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('refuses edits outside the workspace: .., absolute, through a symlink', async () => {
    await writeFile(path.join(ws.outside, 'victim.txt'), 'safe');
    await symlink(path.join(ws.outside, 'victim.txt'), path.join(ws.cwd, 'victim-link.txt'));
    const targets = [path.relative(ws.cwd, path.join(ws.outside, 'victim.txt')), path.join(ws.outside, 'victim.txt'), 'victim-link.txt'];
    for (const target of targets) {
      const result = await runTool(editFileTool, { path: target, old_string: 'safe', new_string: 'pwned' }, toolContext(ws.runtime));
      expect(result.isError, target).toBe(true);
      expect(textOf(result), target).toContain('outside the workspace');
    }
    expect(await readFile(path.join(ws.outside, 'victim.txt'), 'utf8')).toBe('safe');
  });

  it('edits inside an allowed extra root', async () => {
    await writeFile(path.join(ws.outside, 'shared.txt'), 'safe');
    const result = await runTool(
      editFileTool,
      { path: path.join(ws.outside, 'shared.txt'), old_string: 'safe', new_string: 'edited' },
      toolContext(ws.runtime, { allowedRoots: [ws.outside] }),
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(path.join(ws.outside, 'shared.txt'), 'utf8')).toBe('edited');
  });
});
