import { readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file-tool.js';
import { writeFileTool } from '../../src/tools/write-file-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

/** A 40 MB file (sparse past its first line): over the 32 MB bound of whole-file reads. */
async function bigFile(name: string): Promise<string> {
  const file = path.join(ws.cwd, name);
  await writeFile(file, 'first line\n');
  await truncate(file, 40 * 1024 * 1024);
  return file;
}

describe('whole-file reads of a huge file', () => {
  it('edit_file refuses it with the size and how to change it instead', async () => {
    await bigFile('big.log');
    const result = await runTool(editFileTool, { path: 'big.log', old_string: 'first', new_string: 'last' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Cannot read big\.log: .*big\.log is 40\.0 MB; whole-file reads \(edit_file, write_file's diff\) stop at 32 MB\. Read it in windows with read_file/);
  });

  it('write_file replaces it without a diff and says so', async () => {
    const file = await bigFile('big.log');
    const result = await runTool(writeFileTool, { path: 'big.log', content: 'small now\n' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Overwrote big.log (1 lines, 10 bytes). The previous content was too large to show a diff.');
    expect(result.display).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('small now\n');
    expect((await stat(file)).size).toBe(10);
  });
});
