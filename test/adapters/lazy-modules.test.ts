import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = join(root, 'dist/src/index.js');
const REGISTER = join(root, 'test/fixtures/adapters/import-log/register.mjs');
/** The AI SDK's mock model, by path: the script runs in the project folder, outside this clone. */
const AI_TEST = pathToFileURL(createRequire(import.meta.url).resolve('ai/test')).href;

/** The libraries a turn may need, each loaded where it is first needed: never by a turn that has no use for it. */
const ON_FIRST_USE = { yaml: 'a skill', 'html-to-text': 'an HTML page', diff: 'an edit', tinyglobby: 'a file search' } as const;

/**
 * What the command line's own module loads before it knows which face it serves: every start pays
 * for it (a `--version`, a stdio ACP editor session, a one-shot command). A helper of the A2A
 * options once imported the Host/Origin check, which brought the MCP server SDK (700 KB) into every
 * start: session start CPU +30%.
 */
function cliModuleImports(): string[] {
  const entry = join(root, 'dist/src/cli/run-cli.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npx tsc -p tsconfig.json\` first`);
  const log = join(mkdtempSync(join(tmpdir(), 'plaited-lazy-')), 'imports.log');
  const run = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', `await import(${JSON.stringify(entry)});`], {
    encoding: 'utf8',
    env: { ...process.env, PLAITED_IMPORT_LOG: log },
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(log, 'utf8').split('\n');
}

/**
 * A default agent's turn in a fresh node process, with the import log on (what it resolved).
 * `script`: the scripted model's steps; `setup`: files written into the project first.
 */
function turnImports(steps: unknown[], setup: Record<string, string> = {}): string[] {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npx tsc -p tsconfig.json\` first`);
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-lazy-'));
  for (const [file, text] of Object.entries(setup)) {
    mkdirSync(dirname(join(cwd, file)), { recursive: true });
    writeFileSync(join(cwd, file), text);
  }
  const log = join(cwd, 'imports.log');
  const script = `
    const { createDefaultAgent } = await import(${JSON.stringify(ENTRY)});
    const { MockLanguageModelV3, convertArrayToReadableStream } = await import(${JSON.stringify(AI_TEST)});
    const steps = ${JSON.stringify(steps)};
    let call = 0;
    const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
    const model = new MockLanguageModelV3({ doStream: async () => {
      const step = steps[call++] ?? { text: 'done' };
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (step.tool) parts.push({ type: 'tool-call', toolCallId: 'c' + call, toolName: step.tool, input: JSON.stringify(step.input) });
      else parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step.text }, { type: 'text-end', id: 't' });
      const unified = step.tool ? 'tool-calls' : 'stop';
      parts.push({ type: 'finish', finishReason: { unified, raw: unified }, usage });
      return { stream: convertArrayToReadableStream(parts) };
    } });
    const agent = createDefaultAgent({ model, projectDir: ${JSON.stringify(cwd)}, config: { agent: { defaultMode: 'accept-edits' } } });
    const session = await agent.sessions.create({ cwd: ${JSON.stringify(cwd)} });
    for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] })) {
      if (event.type === 'turn-end') console.log(JSON.stringify(event.stopReason));
    }
    await agent.stop();`;
  const run = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PLAITED_IMPORT_LOG: log },
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout.trim()).toBe('"end_turn"');
  return readFileSync(log, 'utf8').split('\n');
}

describe('libraries load with their first use, not with every turn', () => {
  it('a plain turn in a project without skills loads no YAML parser, HTML converter or diff', () => {
    const loaded = turnImports([{ text: 'hello' }]);
    expect(loaded, 'the import log recorded nothing: the resolve hook did not run').toContain('./agent/create-agent.js');
    for (const [name, use] of Object.entries(ON_FIRST_USE)) expect(loaded, `${name} loaded without ${use}`).not.toContain(name);
  });

  it('a skill loads the YAML parser, an edit loads diff and a file search tinyglobby, in the turn that needs them', () => {
    const skill = '---\nname: greet\ndescription: Says hello to the user.\n---\nSay hello.\n';
    const steps = [{ tool: 'edit_file', input: { path: 'a.txt', old_string: 'one', new_string: 'two' } }, { tool: 'glob', input: { pattern: '*.txt' } }, { text: 'edited' }];
    const loaded = turnImports(steps, {
      '.plaited/skills/greet/SKILL.md': skill,
      'a.txt': 'one\n',
    });
    expect(loaded).toContain('yaml');
    expect(loaded).toContain('diff');
    expect(loaded).toContain('tinyglobby');
    expect(loaded).not.toContain('html-to-text');
  });
});

describe('the command line module', () => {
  it('loads no protocol SDK, transport or native module before it knows which face it serves', () => {
    const loaded = cliModuleImports();
    expect(loaded, 'the import log recorded nothing: the resolve hook did not run').toContain('zod');
    for (const heavy of ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@agentclientprotocol/sdk', '@a2a-js/sdk', 'ai', 'ws', 'better-sqlite3', 'node-llama-cpp', 'jiti', 'pg', '@anthropic-ai/sandbox-runtime']) {
      expect(loaded, `${heavy} is loaded by every start`).not.toContain(heavy);
    }
  });
});
