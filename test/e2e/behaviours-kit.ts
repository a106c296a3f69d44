import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach } from 'vitest';
import { startScriptedOpenAIServer, type Script, type ScriptedOpenAIServer, type RecordedRequest } from '../helpers/scripted-openai-server.js';
import { initialize, startAcpCli, type AcpCli, type StartCliOptions } from '../helpers/acp-cli.js';
import { waitFor as waitUntil } from '../helpers/wait-for.js';
import { closeChecked } from '../helpers/close-checked.js';

/** Shared set-up of the behaviour scenarios: a scripted model server per test, CLIs closed and schema-checked after. */
export const state: { server: ScriptedOpenAIServer; script: Script | undefined } = { server: undefined!, script: undefined };
const clis: AcpCli[] = [];

export function useScenario(): void {
  beforeEach(async () => {
    // A function script can be set per test through `route`.
    state.script = undefined;
    state.server = await startScriptedOpenAIServer((request, index) => {
      const script = state.script;
      if (typeof script === 'function') return script(request, index);
      return { text: '(script exhausted)' };
    });
  });
  afterEach(async () => {
    for (const cli of clis.splice(0)) {
      await closeChecked(cli);
    }
    await state.server.close();
  });
}

export function route(script: (request: RecordedRequest, index: number) => import('../helpers/scripted-openai-server.js').ScriptStep): void {
  state.script = script;
}

export function project(config?: string, file = 'config.json'): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-behaviours-'));
  if (config !== undefined) {
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited', file), config);
  }
  return cwd;
}

export function start(cwd: string, options: Partial<StartCliOptions> = {}): AcpCli {
  const cli = startAcpCli({
    cwd,
    args: ['--model', 'openai-compatible:scripted', '--base-url', state.server.url, ...(options.args ?? [])],
    ...options,
  });
  clis.push(cli);
  return cli;
}

/** Closes a CLI now (a restart), still checking what it said against the schema. */
export async function stop(cli: AcpCli): Promise<void> {
  clis.splice(clis.indexOf(cli), 1);
  await closeChecked(cli);
}

export async function newSession(cli: AcpCli, cwd: string, capabilities: acp.ClientCapabilities = {}) {
  await initialize(cli, capabilities);
  return cli.agent.request('session/new', { cwd, mcpServers: [] });
}

export const prompt = (cli: AcpCli, sessionId: string, text: string) =>
  cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

export const updatesOf = (cli: AcpCli, sessionId: string, kind: string) =>
  cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update as Record<string, unknown>);

/** The system prompt of a recorded request. */
export const systemOf = (request: RecordedRequest) =>
  request.messages.filter((message) => message.role === 'system').map((message) => String(message.content)).join('\n');

export const waitFor = (condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> => waitUntil(condition, timeoutMs, what);
