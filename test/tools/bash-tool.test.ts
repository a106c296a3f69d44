import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../src/tools/bash-tool.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import type { Runtime } from '../../src/contracts/runtime.js';
import {
  createWorkspace,
  markedProcesses,
  pgrep,
  runTool,
  textOf,
  toolContext,
  waitForProcesses,
  type Workspace,
} from './tool-test-helpers.js';

let ws: Workspace;
const { marker, killMarked } = markedProcesses();
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  killMarked();
  await ws.cleanup();
});

const bash = createBashTool();

describe('bash', () => {
  it('is an external tool of kind execute, titled after the command', () => {
    expect(bash).toMatchObject({ name: 'bash', risk: 'external', kind: 'execute' });
    expect(bash.title?.({ command: 'npm test' })).toBe('Run: npm test');
    expect(bash.title?.({ command: 'echo a\necho b' })).toBe('Run: echo a…');
    expect(bash.inputSchema).toMatchObject({ required: ['command'] });
  });

  it('runs in the runtime cwd and reports exit code and output', async () => {
    const result = await runTool(bash, { command: 'pwd; echo hi >&2', description: 'where am I' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`Exit code: 0\n${ws.cwd}\nhi`);
    expect(result.display).toEqual([{ type: 'text', text: textOf(result) }]);
  });

  it('makes a non-zero exit an error result with its output', async () => {
    const result = await runTool(bash, { command: 'echo broken; exit 7' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Exit code: 7\nbroken');
  });

  it('says when there is no output', async () => {
    const result = await runTool(bash, { command: 'true' }, toolContext(ws.runtime));
    expect(textOf(result)).toBe('Exit code: 0\n(no output)');
  });

  it('keeps the tail of long output and says it was truncated', async () => {
    const small = createBashTool({ maxOutputBytes: 50 });
    const result = await runTool(small, { command: 'seq 1 1000' }, toolContext(ws.runtime));
    const text = textOf(result);
    expect(result.isError).toBeFalsy();
    expect(text.startsWith('Exit code: 0\n')).toBe(true);
    expect(text).toContain('\n999\n1000\n');
    expect(text).not.toContain('\n1\n2\n');
    expect(text).toMatch(/\(output truncated: showing the last (\d+) bytes\)$/);
    const shown = Number(/last (\d+) bytes/.exec(text)?.[1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(50);
  });

  it('kills a command that exceeds timeout_ms, with its children, and says so', async () => {
    const id = marker();
    const result = await runTool(
      bash,
      { command: `echo before; sleep 30.${id} & sleep 31.${id}; wait`, timeout_ms: 300 },
      toolContext(ws.runtime),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Command timed out after 300 ms and was killed.\nbefore');
    expect(pgrep(id)).toEqual([]);
  });

  it('uses the configured timeout when the call gives none', async () => {
    const quick = createBashTool({ timeoutMs: 200 });
    const result = await runTool(quick, { command: 'sleep 20' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('timed out after 200 ms');
  });

  it('kills the whole process tree when the call is aborted', async () => {
    const id = marker();
    const controller = new AbortController();
    const running = runTool(
      bash,
      { command: `bash -c 'sleep 30.${id} & sleep 31.${id}; wait'` },
      toolContext(ws.runtime, { signal: controller.signal }),
    );
    await waitForProcesses(`sleep 3[01].${id}`, 2);
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(textOf(result).split('\n')[0]).toBe('Command aborted.');
    expect(pgrep(id)).toEqual([]);
  });

  it('turns a runtime that cannot start the command into an error result', async () => {
    const broken = createLocalRuntime(path.join(ws.cwd, 'deleted-folder'));
    const result = await runTool(bash, { command: 'echo hi' }, toolContext(broken));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Could not run the command');
  });

  it('shows a client terminal when the runtime ran the command in one', async () => {
    // A runtime like the ACP adapter's: the command really runs (locally here), in a "terminal" with an id.
    const local = ws.runtime;
    const terminalRuntime: Runtime = {
      cwd: local.cwd,
      kind: 'terminal-test',
      readFile: (file, options) => local.readFile(file, options),
      writeFile: (file, content, options) => local.writeFile(file, content, options),
      exec: async (command, options) => ({ ...(await local.exec(command, options)), terminalId: 'term-42' }),
    };
    const result = await runTool(bash, { command: 'echo in terminal' }, toolContext(terminalRuntime));
    expect(textOf(result)).toBe('Exit code: 0\nin terminal');
    expect(result.display).toEqual([{ type: 'terminal', terminalId: 'term-42' }]);
  });

  it('rejects invalid arguments', () => {
    expect(bash.validate({}).ok).toBe(false);
    expect(bash.validate({ command: 'ls', timeout_ms: -1 }).ok).toBe(false);
  });
});
