import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { waitFor } from '../helpers/wait-for.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { startHttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { project, resultText, startMcpCli, type McpCli } from '../adapters/mcp-server/mcp-test-kit.js';

/**
 * Another agent mounts plaited-agent as a tool (its MCP face over stdio, the built CLI): what it
 * gets back when its arguments are not quite right. One CLI and one model server for the file.
 */
let server: ScriptedOpenAIServer;
let cli: McpCli;
let cwd: string;
const model = () => ['--model', 'openai-compatible:scripted', '--base-url', server.url];
beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  cwd = project();
  cli = await startMcpCli({ cwd, args: model() });
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

  it("a session another process has open: its transcript is still read (MCP resource, sessions export), not an 'Internal error'", async () => {
    server.push({ text: 'First answer.' });
    const first = await runCliOnce(['-p', 'first question', '--output-format', 'json', ...model()], { cwd });
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    // A second turn of that session runs in another process (a script's -p), its model call held.
    server.push({ text: 'never sent', until: new Promise(() => undefined) });
    const holder = spawn(process.execPath, [CLI, '-p', 'second question', '--resume', sessionId, ...model()], { cwd, stdio: 'ignore' });
    const held = new Promise((done) => holder.once('close', done));
    try {
      await waitFor(() => server.open() === 1, 20_000, 'the other process\'s model call');
      const read = await cli.client.readResource({ uri: `plaited://sessions/${sessionId}` });
      const transcript = (read.contents[0] as { text: string }).text;
      expect(transcript).toContain('first question');
      expect(transcript).toContain('First answer.');

      const exported = await runCliOnce(['sessions', 'export', sessionId], { cwd });
      expect(exported.status, exported.stderr).toBe(0);
      expect(exported.stdout).toContain('First answer.');

      // Writing still needs the session: a prompt is refused, named as such.
      const prompt = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'third', sessionId } });
      expect(prompt.isError).toBe(true);
      expect(resultText(prompt)).toContain('session_in_use');
    } finally {
      holder.kill('SIGKILL');
      await held;
    }
  });
});

describe('the MCP face over HTTP, for a host that comes back', () => {
  it('a session id the server does not know (it restarted) is answered 404 with the way back: initialize anew', async () => {
    const http = await startHttpCli({ cwd: project(), args: ['--adapter', 'mcp', ...model()], urlPattern: /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/ });
    try {
      const response = await fetch(http.url, {
        method: 'POST',
        headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'a-session-from-before', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ id: 7, error: { code: -32001 } });
      expect(body.error.message).toContain('Session not found');
      expect(body.error.message).toContain('send initialize again, without Mcp-Session-Id');
    } finally {
      await http.close();
    }
  });
});
