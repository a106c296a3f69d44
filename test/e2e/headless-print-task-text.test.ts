import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

// A script hands `-p` whatever text it has: a list, a number, a file with front matter.
let server: ScriptedOpenAIServer;
beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const project = () => mkdtempSync(join(tmpdir(), 'plaited-print-task-'));
const print = (args: string[]) => runCliOnce([...args, '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd: project() });

describe('plaited-agent -p with a task that begins with "-"', () => {
  it.each([
    ['a list', '- item one\n- item two'],
    ['a number', '-5 °C outside: what should I wear?'],
    ['front matter', '---\ntitle: the task\n---\nSummarise the notes.'],
  ])('%s is the task, not an unknown option, and the flags after it still count', async (_, task) => {
    server.push({ text: 'Done.' });
    const run = await print(['-p', task, '--output-format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('unknown option');
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'Done.', stopReason: 'end_turn' });
    expect(JSON.stringify(server.requests[0]!.messages)).toContain(JSON.stringify(task).slice(1, -1));
  });

  it('a flag value with spaces stays the flag\'s value', async () => {
    server.push({ text: 'Fine.' });
    const run = await print(['-p', 'lint it', '--allow=bash(npm run lint:*)', '--output-format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.stringify(server.requests[0]!.messages)).toContain('lint it');
  });
});

describe('plaited-agent -p in a folder below the project', () => {
  it('names the project config it does not read from here, and how to use it', async () => {
    // A Makefile's `cd src && plaited-agent -p ...`: the config is the project folder's, not this one's.
    const root = project();
    mkdirSync(join(root, '.plaited'));
    writeFileSync(join(root, '.plaited', 'config.json'), JSON.stringify({ agent: { maxSteps: 5 } }));
    const below = join(root, 'src', 'lib');
    mkdirSync(below, { recursive: true });
    server.push({ text: 'Done.' });
    const run = await runCliOnce(['-p', 'hello', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd: below });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${join(root, '.plaited', 'config.json')} is not read from ${below}`);
    expect(run.stderr).toContain(`cd ${root}`);

    // In the project folder itself, nothing to say.
    server.push({ text: 'Done.' });
    const atRoot = await runCliOnce(['-p', 'hello', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd: root });
    expect(atRoot.status, atRoot.stderr).toBe(0);
    expect(atRoot.stderr).not.toContain('is not read from');
  });
});

describe('plaited-agent -p beside the flags of a protocol face', () => {
  it.each([
    [['--adapter', 'mcp'], '--adapter mcp serves a protocol; -p runs one turn and serves none: drop --adapter mcp (or -p)'],
    [['--adapter', './adapter.ts'], '--adapter ./adapter.ts is a custom adapter, which -p does not build'],
    [['--transport', 'http', '--port', '0'], '--transport is for serving a protocol; -p runs one turn and serves none: drop --transport'],
  ])('%j is a usage mistake named, not ignored', async (flags, message) => {
    const run = await print(['-p', 'hello', ...flags]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });
});
