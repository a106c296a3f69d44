import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { requireTestModel } from '../model/test-models.js';
import { closeChecked } from '../helpers/close-checked.js';

/**
 * The in-process llama.cpp provider at its limits, through the real CLI with the tiny GGUF (random
 * weights: gibberish that never ends by itself). Token counts come from the provider's own
 * counters, logged at debug level on stderr.
 */
const modelPath = requireTestModel('PLAITED_TEST_CHAT_MODEL');
const clis: AcpCli[] = [];

afterEach(async () => {
  for (const cli of clis.splice(0)) await closeChecked(cli);
});

function project(config?: unknown): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-local-limits-'));
  if (config) {
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(config));
  }
  return cwd;
}

async function start(cwd: string, owner: AcpCli[] = clis): Promise<AcpCli> {
  const cli = startAcpCli({ cwd, args: ['--model', `llama-cpp:${modelPath}`, '--log-level', 'debug'] });
  owner.push(cli);
  await initialize(cli, { session: { compaction: {}, notices: {} } });
  return cli;
}

/**
 * The tests on the default config share one CLI (a session each): a start loads node-llama-cpp,
 * tests its binary in a child process and loads the model, about 2 s of CPU on this machine.
 */
const sharedClis: AcpCli[] = [];
let defaultConfigCli: Promise<{ cli: AcpCli; cwd: string }> | undefined;
function onDefaultConfig(): Promise<{ cli: AcpCli; cwd: string }> {
  defaultConfigCli ??= (async () => {
    const cwd = project();
    return { cli: await start(cwd, sharedClis), cwd };
  })();
  return defaultConfigCli;
}
afterAll(async () => {
  for (const cli of sharedClis.splice(0)) await closeChecked(cli);
});

interface Generation {
  sessionId: string;
  prompt: number;
  reused: number;
  evaluated: number;
  finish: string;
}

/** The provider's per-generation counters from the debug log. */
function generations(cli: AcpCli): Generation[] {
  const pattern = /llama-cpp generation \(session ([^)]+)\): prompt (\d+) tokens \((\d+) reused, (\d+) evaluated\), \d+ generated, finish (\w+)/g;
  return [...cli.stderr().matchAll(pattern)].map((m) => ({ sessionId: m[1]!, prompt: Number(m[2]), reused: Number(m[3]), evaluated: Number(m[4]), finish: m[5]! }));
}

const prompt = (cli: AcpCli, sessionId: string, text: string) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

describe('local llama.cpp model at its limits (real CLI, tiny GGUF)', () => {
  it('a default-config turn ends end_turn or max_tokens, never an error', async () => {
    const { cli, cwd } = await onDefaultConfig();
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const response = await prompt(cli, sessionId, 'Explain what this project does.');
    expect(['end_turn', 'max_tokens']).toContain(response.stopReason);
    await waitFor(() => generations(cli).some((g) => g.sessionId === sessionId), 10_000, 'the generation log line');
    const [generation] = generations(cli).filter((g) => g.sessionId === sessionId);
    expect(generation, cli.stderr()).toBeDefined();
    expect(['stop', 'length']).toContain(generation!.finish);
    expect(cli.stderr()).not.toMatch(/context shift|Internal error/i);
  }, 180_000);

  it("the second turn evaluates fewer prompt tokens than the first: the session's prefix is reused", async () => {
    // A short answer: the random model's gibberish does not survive detokenizing and tokenizing again,
    // so a long one would be evaluated anew (as in node-llama-cpp's own LlamaChatSession).
    const cwd = project({ agent: { maxOutputTokens: 48 } });
    const cli = await start(cwd);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect(['end_turn', 'max_tokens']).toContain((await prompt(cli, sessionId, 'Explain what this project does.')).stopReason);
    expect(['end_turn', 'max_tokens']).toContain((await prompt(cli, sessionId, 'And how do I run its tests?')).stopReason);
    // stderr is its own pipe: the second generation's log line may land just after the answer on stdout.
    await waitFor(() => generations(cli).filter((g) => g.sessionId === sessionId).length >= 2, 10_000, 'the second generation log line');
    const [one, two] = generations(cli).filter((g) => g.sessionId === sessionId);
    expect(one, cli.stderr()).toBeDefined();
    expect(two, cli.stderr()).toBeDefined();
    expect(one!.reused).toBe(0);
    expect(two!.prompt).toBeGreaterThan(one!.prompt);
    expect(two!.reused).toBeGreaterThanOrEqual(one!.prompt - 1);
    expect(two!.evaluated).toBeLessThan(one!.evaluated);
  }, 180_000);

  it('a long conversation that overflows the context compacts or stops cleanly, never with an error', async () => {
    const cwd = project({ agent: { contextSize: 2048, maxOutputTokens: 200 } });
    const cli = await start(cwd);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const stops: string[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      const response = await prompt(cli, sessionId, `Turn ${turn}: tell me more about the code, in detail. ${'Please be thorough. '.repeat(20)}`);
      stops.push(response.stopReason);
    }
    for (const stop of stops) expect(['end_turn', 'max_tokens']).toContain(stop);
    const compacted = cli.updates.some((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'compaction_update');
    const stoppedForRoom = cli.updates.some(
      (u) => u.sessionId === sessionId && u.update.sessionUpdate === 'notice' && /no longer fits/.test(JSON.stringify(u.update)),
    );
    expect(compacted || stoppedForRoom, cli.stderr()).toBe(true);
    // Every generation fitted the context: none failed inside node-llama-cpp.
    for (const generation of generations(cli)) expect(generation.finish).not.toBe('error');
    expect(cli.stderr()).not.toMatch(/context shift|Internal error/i);
  }, 300_000);

  it('an evicted session still works (one resident sequence, two sessions)', async () => {
    const cwd = project({ agent: { maxOutputTokens: 32, localModel: { sequences: 2, residentSequences: 1 } } });
    const cli = await start(cwd);
    const a = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const b = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect((await prompt(cli, a.sessionId, 'First question of A.')).stopReason).toMatch(/end_turn|max_tokens/);
    expect((await prompt(cli, b.sessionId, 'First question of B.')).stopReason).toMatch(/end_turn|max_tokens/);
    expect((await prompt(cli, a.sessionId, 'Second question of A.')).stopReason).toMatch(/end_turn|max_tokens/);
    await waitFor(() => generations(cli).filter((g) => g.sessionId === a.sessionId).length >= 2, 10_000, "A's second generation log line");
    const ofA = generations(cli).filter((g) => g.sessionId === a.sessionId);
    expect(ofA).toHaveLength(2);
    // A lost its sequence to B: its second turn evaluated the whole prompt again, and answered.
    expect(ofA[1]!.reused).toBe(0);
    expect(['stop', 'length']).toContain(ofA[1]!.finish);
  }, 180_000);

  it('a cancel during prefix evaluation stops it', async () => {
    const { cli, cwd } = await onDefaultConfig();
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    // A long prompt: ~3,000 tokens evaluated in batches, checked for the cancel between them.
    const answer = prompt(cli, sessionId, 'Read this carefully. '.repeat(450));
    await waitFor(() => new RegExp(`llama-cpp prompt \\(session ${sessionId}\\)`).test(cli.stderr()), 120_000, 'the prompt evaluation to start');
    await cli.agent.notify('session/cancel', { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    await waitFor(() => generations(cli).some((g) => g.sessionId === sessionId), 60_000, 'the cancelled generation');
    const [cancelled] = generations(cli).filter((g) => g.sessionId === sessionId);
    expect(cancelled!.finish).toBe('cancelled');
    expect(cancelled!.evaluated).toBeLessThan(cancelled!.prompt);
    // The session goes on.
    const next = await prompt(cli, sessionId, 'Short one.');
    expect(['end_turn', 'max_tokens']).toContain(next.stopReason);
  }, 180_000);
});
