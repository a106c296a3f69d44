import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';

// A script's `-p` killed while a command ran (a CI job cancelled, an ssh session gone): what the
// next command in the project sees of the read-only layer's placeholders it left.
let server: ScriptedOpenAIServer;
beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const model = () => ['--model', 'openai-compatible:scripted', '--base-url', server.url];

describe('a -p run killed while its command ran', () => {
  it('leaves nothing the next start or init takes for a config', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-killed-'));
    const sleep = uniqueSleep();
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: sleep } }] });
    const run = spawn(process.execPath, [CLI, '-p', 'wait a while', '--allow', 'bash', ...model()], { cwd, stdio: 'ignore' });
    const exited = new Promise((done) => run.once('close', done));
    await waitFor(() => processesMatching(sleep).length > 0, 20_000, 'the command');
    run.kill('SIGKILL');
    await exited;
    await waitFor(() => processesMatching(sleep).length === 0, 10_000, 'the command to die with the agent');
    // What the kill left: the read-only placeholder of a missing config (an empty folder, no write bits).
    const placeholder = join(cwd, '.plaited', 'config.ts');
    expect(lstatSync(placeholder).isDirectory()).toBe(true);

    server.push({ text: 'Hello.' });
    const next = await runCliOnce(['-p', 'hello', ...model()], { cwd });
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('is not a config file');

    const init = await runCliOnce(['init'], { cwd, trust: false });
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).not.toContain('a config exists');
    expect(init.stdout).toContain(`Wrote ${placeholder}`);
    expect(existsSync(placeholder) && lstatSync(placeholder).isFile()).toBe(true);
    expect(readFileSync(placeholder, 'utf8')).toContain('agent');
  });
});
