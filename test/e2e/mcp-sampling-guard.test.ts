import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

/**
 * Issue 21 item 12, through the built CLI: a configured MCP server whose tool asks for 20
 * completions (sampling/createMessage). By default each is a question to the user and at most
 * 5 a minute get through; `sampling: 'deny'` refuses them all without asking. Every refusal
 * reaches the server as an MCP error that names its cause.
 */

const floodServer = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/sampling-flood-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-sampling-' });

function project(sampling?: 'ask' | 'allow' | 'deny'): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  const server = { id: 'flood', transport: 'stdio', command: process.execPath, args: [floodServer], ...(sampling ? { sampling } : {}) };
  writeFileSync(
    join(cwd, '.plaited/config.json'),
    JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 }, mcp: { servers: [server] }, tools: { allow: ['mcp__flood__flood'] } }),
  );
  return cwd;
}

/** One turn in which the model calls `flood` with 20; returns the server's report and the sampling questions asked. */
async function flood(cwd: string, answers: number): Promise<{ report: { answered: number; errors: string[] }; asked: acp.RequestPermissionRequest[] }> {
  const asked: acp.RequestPermissionRequest[] = [];
  const cli = bed.start(cwd, {
    onPermission: (request) => {
      if (request.toolCall.title?.includes('wants to use the model')) asked.push(request);
      const allow = request.options.find((option) => option.kind === 'allow_once')!;
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    },
  });
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  bed.server.push({ toolCalls: [{ name: 'mcp__flood__flood', arguments: { count: 20 } }] });
  for (let index = 0; index < answers; index++) bed.server.push({ text: `sampled ${index}` });
  bed.server.push({ text: 'flooded' });
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'flood' }] });
  expect(response.stopReason).toBe('end_turn');
  const toolMessage = bed.server.requests.at(-1)!.messages.find((message) => message.role === 'tool');
  const content = typeof toolMessage?.content === 'string' ? toolMessage.content : JSON.stringify(toolMessage?.content);
  const match = /flood report (\{.*\})/.exec(content);
  if (!match) throw new Error(`no flood report in ${content}`);
  return { report: JSON.parse(match[1]!) as { answered: number; errors: string[] }, asked };
}

describe('MCP sampling is asked for and rate-limited', () => {
  it('by default each request is a question to the user, and no more than 5 a minute get through (20 asked for)', async () => {
    const { report, asked } = await flood(project(), 5);
    expect(asked).toHaveLength(5);
    expect(asked[0]!.toolCall.title).toContain('flood prompt 0');
    expect(report.answered).toBe(5);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatch(/^-1 .*Sampling rate limit: MCP server "flood" may ask for 5 completions per minute.*samplingPerMinute/);
  }, 90_000);

  it("sampling: 'deny' refuses every request without asking, and says which config rule did", async () => {
    const { report, asked } = await flood(project('deny'), 0);
    expect(asked).toHaveLength(0);
    expect(report.answered).toBe(0);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatch(/Sampling refused: the config of MCP server "flood" says sampling: 'deny'/);
  }, 90_000);
});
