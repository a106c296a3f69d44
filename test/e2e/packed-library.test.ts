import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { agentText, initialize, startAcpCli } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = join(root, 'test/fixtures/library-consumer');
const TSC = join(root, 'node_modules/typescript/bin/tsc');

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  const output = `${command} ${args.join(' ')} (exit ${result.status}):\n${result.stdout}\n${result.stderr}`;
  return { ...result, output };
}

/** `run`, asynchronously: the command runs while the test goes on; `stop` ends it early (a failed test). */
function runInBackground(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ status: number | null; output: string }>((resolveRun, fail) => {
    child.once('error', fail);
    child.once('close', (status) => resolveRun({ status, output: `${command} ${args.join(' ')} (exit ${status}):\n${stdout}\n${stderr}` }));
  });
  return { done, stop: () => void (child.exitCode === null && child.kill()) };
}

function versionOf(name: string): string {
  return (JSON.parse(spawnSync(process.execPath, ['-p', `JSON.stringify(require('${name}/package.json'))`], { cwd: root, encoding: 'utf8' }).stdout) as { version: string }).version;
}

describe('the packed package as a library', () => {
  const servers: ScriptedOpenAIServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  const startServer = async (script: Parameters<typeof startScriptedOpenAIServer>[0] = []): Promise<ScriptedOpenAIServer> => {
    const server = await startScriptedOpenAIServer(script);
    servers.push(server);
    return server;
  };

  /** What the install left, and the installed bin: a turn over ACP, and a local model without node-llama-cpp. */
  async function installedBinChecks(consumer: string): Promise<void> {
    // A light install: npm leaves the optional peer node-llama-cpp (llama.cpp builds, ~600 MB) out.
    expect(existsSync(join(consumer, 'node_modules/node-llama-cpp'))).toBe(false);
    const megabytes = Number(run('du', ['-sm', 'node_modules'], consumer).stdout.split('\t')[0]);
    expect(megabytes).toBeGreaterThan(0);
    expect(megabytes).toBeLessThanOrEqual(250);

    // A turn through the installed bin, over ACP.
    const bin = join(consumer, 'node_modules/plaited-agent/dist/bin/plaited-agent.js');
    const server = await startServer([{ text: 'Answered through the installed bin.' }]);
    const cli = startAcpCli({ cwd: consumer, cli: bin, trust: false, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
    try {
      await initialize(cli);
      const { sessionId } = await cli.agent.request('session/new', { cwd: consumer, mcpServers: [] });
      expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
      expect(agentText(cli, sessionId)).toBe('Answered through the installed bin.');
    } finally {
      await cli.close();
    }

    // A local model without node-llama-cpp: the turn names the install command.
    const local = startAcpCli({ cwd: consumer, cli: bin, trust: false, args: ['--model', `llama-cpp:${requireTestModel('PLAITED_TEST_CHAT_MODEL')}`] });
    try {
      await initialize(local);
      const { sessionId } = await local.agent.request('session/new', { cwd: consumer, mcpServers: [] });
      await expect(local.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({
        message: expect.stringContaining('npm install node-llama-cpp@3.21.1'),
        data: { code: 'local_runtime_missing' },
      });
    } finally {
      await local.close();
    }
  }

  it('installs from the tarball, type-checks a strict consumer with skipLibCheck off, and runs a turn', async () => {
    if (!existsSync(join(root, 'dist/src/index.js'))) throw new Error('dist is missing: run `npx tsc -p tsconfig.json` first');
    const work = mkdtempSync(join(tmpdir(), 'plaited-consumer-'));
    // dist is built by the test run; scripts are skipped so `prepare` does not rebuild it.
    const pack = run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root);
    expect(pack.status, pack.output).toBe(0);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    expect(tarball, pack.output).toBeDefined();

    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    for (const file of ['consumer.ts', 'tsconfig.json']) copyFileSync(join(fixture, file), join(consumer, file));
    // Install scripts are skipped: better-sqlite3 would fetch a prebuilt binary from GitHub
    // (unreachable here) or compile for minutes. The same version's binary, built for this
    // Node by the repo's own install, stands in for that download below.
    const install = run(
      'npm',
      ['install', join(work, tarball!), `zod@${versionOf('zod')}`, `@types/node@${versionOf('@types/node')}`, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      consumer,
    );
    expect(install.status, install.output).toBe(0);
    expect(versionOf('better-sqlite3')).toBe(
      (JSON.parse(spawnSync(process.execPath, ['-p', "JSON.stringify(require('better-sqlite3/package.json'))"], { cwd: consumer, encoding: 'utf8' }).stdout) as { version: string }).version,
    );
    const binary = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    mkdirSync(dirname(join(consumer, binary)), { recursive: true });
    copyFileSync(join(root, binary), join(consumer, binary));

    // The strict compile (~20 s of one core) runs while the installed bin is tried on the other core.
    const compiling = runInBackground(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    try {
      await installedBinChecks(consumer);
    } catch (error) {
      compiling.stop();
      throw error;
    }
    const compile = await compiling.done;
    expect(compile.status, compile.output).toBe(0);

    const server = await startServer([{ toolCalls: [{ name: 'shout', arguments: { word: 'hello' } }] }, { text: 'Done: HELLO' }]);
    // Asynchronously: the scripted model answers from this process's event loop.
    const turn = await promisify(execFile)(process.execPath, ['dist/consumer.js'], {
      cwd: consumer,
      env: { ...process.env, MODEL_BASE_URL: server.url },
      timeout: 120_000,
    });
    // The run ended by itself (execFile waits for the exit): the faces it served and closed left nothing open.
    expect(JSON.parse(turn.stdout.trim())).toEqual({ text: 'Done: HELLO', tool: true, stopReason: 'end_turn', refused: 'shout loudly', card: 'plaited-agent', mcpUp: true });
    // The tool's result went back to the model.
    expect(JSON.stringify(server.requests[1]?.messages)).toContain('HELLO');
  }, 600_000);
});
