import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../helpers/scripted-openai-server.js';
import { initialize, startAcpCli, type AcpCli } from '../../helpers/acp-cli.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

const fileReader = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/sandbox/file-reader-mcp-server.mjs');

let world: SandboxWorld;
let model: ScriptedOpenAIServer;
beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  world = await createSandboxWorld();
  model = await startScriptedOpenAIServer();
});
afterAll(async () => {
  await model?.close();
  await world?.close();
});

/**
 * With `adapters.sandbox.commands`, a stdio MCP server a session brings runs under the same
 * policy as bash: it cannot read a denied path, and the model is told why.
 */
describe('per-command sandbox for stdio MCP servers', () => {
  it('a session MCP server that reads ~/.ssh/id_rsa is blocked', async () => {
    mkdirSync(join(world.project, '.plaited'), { recursive: true });
    writeFileSync(
      join(world.project, '.plaited/config.json'),
      JSON.stringify({ adapters: { sandbox: { commands: true } }, tools: { allow: ['mcp__*'] } }),
    );
    const cli: AcpCli = startAcpCli({
      cwd: world.project,
      args: ['--model', 'openai-compatible:scripted', '--base-url', model.url],
      env: { HOME: world.home, NODE_ENV: 'test' },
    });
    try {
      await initialize(cli);
      const server: acp.McpServer = { name: 'reader', command: process.execPath, args: [fileReader], env: [] };
      const { sessionId } = await cli.agent.request('session/new', { cwd: world.project, mcpServers: [server] });
      model.push({ toolCalls: [{ name: 'mcp__reader__read_text', arguments: { path: world.sshKeyPath } }] }, { text: 'done' });
      const before = model.requests.length;
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read my key' }] });
      const toolResult = JSON.stringify(model.requests[before + 1]!.messages.filter((message) => message.role === 'tool'));
      expect(toolResult).not.toContain('plaited-fixture-key');
      expect(toolResult).toMatch(/read_text failed|blocked by sandbox|EACCES|ENOENT|permission denied/i);
      const failed = cli.updates.find((n) => n.update.sessionUpdate === 'tool_call_update' && (n.update as acp.ToolCallUpdate).status === 'failed');
      expect(failed).toBeDefined();
      expect(cli.validator.errors).toEqual([]);
    } finally {
      await cli.close();
    }
  }, 60_000);
});
