import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const fixtureServer = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-elicit-' });

function project(): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }));
  return cwd;
}

const fixture: acp.McpServer = { name: 'fixture', command: process.execPath, args: [fixtureServer, '--name', 'fixture'], env: [] };

/** Runs one turn where the model calls the fixture's `ask` tool (a free-text form elicitation). */
async function askThroughMcp(capabilities: acp.ClientCapabilities, onElicit?: (request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse) {
  const cwd = project();
  const cli = bed.start(cwd, {
    configureClient: (app) => {
      if (onElicit) app.onRequest('elicitation/create', ({ params }) => onElicit(params));
    },
  });
  await initialize(cli, capabilities);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [fixture] });
  bed.server.push({ toolCalls: [{ name: 'mcp__fixture__ask', arguments: { question: 'What is the answer?' } }] }, { text: 'Thanks.' });
  const before = bed.server.requests.length;
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask me' }] });
  expect(response.stopReason).toBe('end_turn');
  return { sessionId, cli, toolResult: JSON.stringify(bed.server.requests[before + 1]!.messages) };
}

describe('elicitation over ACP', () => {
  it("a client that advertises elicitation gets the MCP server's form as elicitation/create", async () => {
    const asked: acp.CreateElicitationRequest[] = [];
    const { sessionId, toolResult } = await askThroughMcp({ elicitation: { form: {} } }, (request) => {
      asked.push(request);
      return { action: 'accept', content: { answer: '42' } };
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId,
      mode: 'form',
      message: 'What is the answer?',
      requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
    expect((asked[0] as { toolCallId?: string }).toolCallId).toBeTruthy();
    expect(toolResult).toContain('accept: {\\"answer\\":\\"42\\"}');
  });

  it('without the capability the permission fallback stays (free text cannot be asked: declined with a notice)', async () => {
    const { sessionId, cli, toolResult } = await askThroughMcp({});
    expect(toolResult).toContain('decline');
    const shown = cli.updates.filter((n) => n.sessionId === sessionId).map((n) => JSON.stringify(n.update));
    expect(shown.some((update) => update.includes('asked for input this client cannot collect'))).toBe(true);
  });
});
