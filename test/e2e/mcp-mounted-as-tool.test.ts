import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { project, resultText, startMcpCli, type McpCli } from '../adapters/mcp-server/mcp-test-kit.js';

/**
 * Another agent mounts plaited-agent as a tool (its MCP face over stdio, the built CLI): what it
 * gets back when its arguments are not quite right. One CLI and one model server for the file.
 */
let server: ScriptedOpenAIServer;
let cli: McpCli;
beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  cli = await startMcpCli({ cwd: project(), args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
});
afterAll(async () => {
  await cli?.close();
  await server?.close();
});

describe('the MCP face, called by another agent', () => {
  it('an argument the tool does not take is a tool error naming it and the one meant, not a new session', async () => {
    server.push({ text: 'Noted.' });
    const first = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'remember 42' } });
    const { sessionId } = first.structuredContent as { sessionId: string };
    const before = server.requests.length;

    // `sessionID` for `sessionId`: taken silently, the turn would go to a fresh session without the context.
    const typo = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'which number?', sessionID: sessionId } });
    expect(typo.isError).toBe(true);
    expect(resultText(typo)).toContain('unknown argument "sessionID": did you mean sessionId?');
    expect(server.requests.length).toBe(before);
    const listed = await cli.client.callTool({ name: 'list_sessions', arguments: {} });
    expect((listed.structuredContent as { sessions: unknown[] }).sessions).toHaveLength(1);

    // The schema the host sees says so too.
    const { tools } = await cli.client.listTools();
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);

    const stray = await cli.client.callTool({ name: 'new_session', arguments: { folder: '/tmp' } });
    expect(stray.isError).toBe(true);
    expect(resultText(stray)).toContain('unknown argument "folder" (new_session takes cwd, mode)');
  });

  it('an unknown session names the way to a known one', async () => {
    const unknown = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'hi', sessionId: 'no-such-session' } });
    expect(unknown.isError).toBe(true);
    expect(resultText(unknown)).toContain('Unknown session: no-such-session');
    expect(resultText(unknown)).toContain('list_sessions');
    expect(resultText(unknown)).toContain('leave sessionId out');
  });
});
