import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createAgent, type CreateAgentOptions } from '../../src/agent/create-agent.js';
import type { Agent, ProcessOptions } from '../../src/agent/agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema, type PlaitedConfigInput } from '../../src/config/schema.js';
import type { ResolvedLanguageModel } from '../../src/model/resolve-model.js';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';

/** An MCP tool as the registry names it (server `github`), for the permission tests. */
export const githubCreateIssue = defineTool({
  name: 'mcp__github__create_issue',
  description: 'creates an issue',
  parameters: z.object({ title: z.string() }),
  risk: 'external',
  source: 'mcp',
  execute: async () => textResult('ok'),
});

export function tempProject(): string {
  return mkdtempSync(join(tmpdir(), 'plaited-behaviour-'));
}

export function makeAgent(model: ResolvedLanguageModel, config: PlaitedConfigInput = {}, extra: Partial<CreateAgentOptions> = {}): Agent {
  const agent = createAgent({ config: configSchema.parse(config), model, ...extra });
  // Stopped when the test that made it ends. Registered per agent, not as a module-level
  // afterEach: unit files share one module graph (vitest.config.ts, isolate off), so a hook
  // registered when this module first loads would only ever run for the first file.
  onTestFinished(() => agent.stop());
  return agent;
}

export type PermissionEvent = Extract<AgentOutput, { type: 'permission-request' }>;

/** Runs one prompt to its end; permission questions are answered by `answer` (undefined = leave open). */
export async function collect(
  agent: Agent,
  sessionId: string,
  text: string,
  answer: (event: PermissionEvent) => string | undefined = () => 'allow-once',
  options: ProcessOptions = {},
  onEvent?: (event: AgentOutput) => void,
): Promise<AgentOutput[]> {
  const events: AgentOutput[] = [];
  for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text }] }, options)) {
    events.push(event);
    onEvent?.(event);
    if (event.type === 'permission-request') {
      const optionId = answer(event);
      if (optionId) event.respond({ outcome: 'selected', optionId });
    }
  }
  return events;
}

export const textOf = (events: AgentOutput[]) => events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');

export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export { waitFor } from '../helpers/wait-for.js';
