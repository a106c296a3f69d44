import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { project, resultText, startMcpCli, type McpCli } from '../adapters/mcp-server/mcp-test-kit.js';

/**
 * One model server and one CLI (default flags, no client capabilities) for the file: a start is
 * ~1 s of CPU, a turn on a running CLI almost nothing. MCP sessions work in the process folder,
 * so tests on the shared CLI use files of their own names there. A test that needs other client
 * capabilities or no model starts its own CLI. After each test no scripted step may be left over.
 */
let server: ScriptedOpenAIServer;
let shared: { cli: McpCli; cwd: string };
let from = 0;
const clis: McpCli[] = [];
/** The chat requests of this test. */
const requests = () => server.requests.slice(from);

beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  const cwd = project();
  shared = { cli: await start(cwd), cwd };
});
afterAll(async () => {
  await shared?.cli.close();
  await server?.close();
});
beforeEach(() => {
  from = server.requests.length;
});
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
  expect(server.pending(), 'scripted steps the test left unused').toBe(0);
});

async function start(cwd: string, options: Omit<Parameters<typeof startMcpCli>[0], 'cwd'> = {}): Promise<McpCli> {
  return startMcpCli({ cwd, ...options, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url, ...(options.args ?? [])] });
}

interface PromptSummary {
  sessionId: string;
  text: string;
  stopReason: string;
  toolCalls: Array<{ toolName: string; status: string; input: unknown; output?: string }>;
  permissions: Array<{ outcome: string; decidedBy: string; reason?: string }>;
}

describe('the agent as an MCP server over stdio (the built CLI)', () => {
  it('lists its tools: prompt, new_session, list_sessions (no registry tools unless exposed)', async () => {
    const { cli } = shared;
    expect(cli.client.getServerVersion()?.name).toBe('plaited-agent');
    const { tools } = await cli.client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['list_sessions', 'new_session', 'prompt']);
    const prompt = tools.find((tool) => tool.name === 'prompt')!;
    expect(prompt.inputSchema.required).toEqual(['prompt']);
    expect(Object.keys(prompt.inputSchema.properties ?? {}).sort()).toEqual(['prompt', 'sessionId']);
  });

  it('thinking reaches the host as progress, marked, and stays out of the answer', async () => {
    const { cli } = shared;
    server.push({ reasoning: 'Counting the letters.', text: 'Five.', chunkDelayMs: 15 });
    const progress: string[] = [];
    const result = await cli.client.callTool(
      { name: 'prompt', arguments: { prompt: 'how many letters in apple?' } },
      { onprogress: (update) => void progress.push(update.message ?? '') },
    );
    expect(resultText(result)).toBe('Five.');
    const thinking = progress.filter((message) => message.startsWith('[thinking] '));
    expect(thinking.map((message) => message.slice('[thinking] '.length)).join('')).toBe('Counting the letters.');
    expect(progress.filter((message) => !message.startsWith('[thinking] ')).join('')).toBe('Five.');
  });

  it('runs a turn: final text, streamed progress, and a session that continues', async () => {
    const { cli } = shared;
    // Streamed with gaps, as a real model does: the MCP client SDK handles notifications a
    // microtask later than responses, so progress that arrives in the same read as the
    // response would be dropped by the client.
    server.push({ text: 'Hello from the scripted model.', chunkDelayMs: 15 });
    const progress: string[] = [];
    const result = await cli.client.callTool(
      { name: 'prompt', arguments: { prompt: 'say hello' } },
      { onprogress: (update) => void progress.push(update.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('Hello from the scripted model.');
    const summary = result.structuredContent as unknown as PromptSummary;
    expect(summary.stopReason).toBe('end_turn');
    expect(summary.toolCalls).toEqual([]);
    // Progress carried the streamed text, in pieces.
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.join('')).toBe('Hello from the scripted model.');

    server.push({ text: 'Second answer.' });
    const again = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'and again', sessionId: summary.sessionId } });
    expect(resultText(again)).toBe('Second answer.');
    // The model saw the first exchange: the session continued.
    expect(JSON.stringify(requests()[1]!.messages)).toContain('Hello from the scripted model.');
  });

  it('reports tool calls in the structured summary and as progress steps', async () => {
    const { cli, cwd } = shared;
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The file has two lines.' });
    const progress: string[] = [];
    const result = await cli.client.callTool(
      { name: 'prompt', arguments: { prompt: 'read notes.txt' } },
      { onprogress: (update) => void progress.push(update.message ?? '') },
    );
    const summary = result.structuredContent as unknown as PromptSummary;
    expect(resultText(result)).toBe('The file has two lines.');
    expect(summary.toolCalls).toHaveLength(1);
    expect(summary.toolCalls[0]).toMatchObject({ toolName: 'read_file', status: 'completed', input: { path: 'notes.txt' } });
    expect(summary.toolCalls[0]!.output).toContain('beta');
    expect(progress.some((message) => message.startsWith('[tool read_file]'))).toBe(true);
    expect(progress).toContain('[tool read_file] completed');
  });

  it('without elicitation, policy rejects a write tool and the result says so', async () => {
    const { cli, cwd } = shared;
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'no' } }] }, { text: 'Could not write.' });
    const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'write x' } });
    const summary = result.structuredContent as unknown as PromptSummary;
    expect(existsSync(join(cwd, 'x.txt'))).toBe(false);
    expect(summary.permissions).toHaveLength(1);
    expect(summary.permissions[0]).toMatchObject({ outcome: 'rejected', decidedBy: 'policy' });
    expect(resultText(result)).toContain('policy rejects write and external tools');
    expect(summary.toolCalls[0]).toMatchObject({ toolName: 'write_file', status: 'failed' });
    // The model is told why nobody said yes, not that a user said no (it would try variants).
    expect(summary.toolCalls[0]!.output).toContain('Not run: the MCP host cannot be asked (no elicitation support)');
    expect(summary.toolCalls[0]!.output).toContain('Do not retry it or a variant of it');
  });

  it('with elicitation, the host is asked and its answer is applied', async () => {
    const cwd = project();
    const asked: string[] = [];
    const cli = await start(cwd, {
      capabilities: { elicitation: { form: {} } },
      configure: (client) =>
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push(String(request.params.message));
          return { action: 'accept', content: { decision: 'allow-once' } };
        }),
    });
    clis.push(cli);
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'y.txt', content: 'yes' } }] }, { text: 'Written.' });
    const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'write y' } });
    const summary = result.structuredContent as unknown as PromptSummary;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('y.txt');
    expect(summary.permissions[0]).toMatchObject({ outcome: 'allowed', decidedBy: 'host' });
    expect(readFileSync(join(cwd, 'y.txt'), 'utf8')).toBe('yes');
  });

  it('a host cancellation aborts the turn; the transcript resource shows what happened', async () => {
    const { cli } = shared;
    const { structuredContent } = await cli.client.callTool({ name: 'new_session', arguments: {} });
    const sessionId = (structuredContent as { sessionId: string }).sessionId;
    // The model answers only after 20 s: the turn is still waiting when the host cancels.
    server.push({ text: 'too late', delayMs: 20_000 });
    const controller = new AbortController();
    const call = cli.client.callTool({ name: 'prompt', arguments: { prompt: 'slow question', sessionId } }, { signal: controller.signal });
    const settled = call.then(
      () => 'resolved',
      (error: Error) => `rejected: ${error.message}`,
    );
    while (requests().length === 0) await new Promise((tick) => setTimeout(tick, 20));
    controller.abort('user pressed stop');
    expect(await settled).toMatch(/^rejected/);

    // The server stopped the turn (the session's next turn is not queued behind it).
    server.push({ text: 'Fresh answer.' });
    const next = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'quick question', sessionId } });
    expect(resultText(next)).toBe('Fresh answer.');

    const templates = await cli.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toContain('plaited://sessions/{id}');
    const listed = await cli.client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toContain(`plaited://sessions/${sessionId}`);
    const read = await cli.client.readResource({ uri: `plaited://sessions/${sessionId}` });
    const transcript = (read.contents[0] as { text: string }).text;
    expect(transcript).toContain('slow question');
    expect(transcript).toContain('turn ended: cancelled');
    expect(transcript).toContain('quick question');
    expect(transcript).toContain('Fresh answer.');
  });

  it('lists sessions, and a prompt for an unknown session is a tool error', async () => {
    const { cli } = shared;
    server.push({ text: 'ok' });
    const first = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'first' } });
    const { sessionId } = first.structuredContent as unknown as PromptSummary;
    const listed = await cli.client.callTool({ name: 'list_sessions', arguments: {} });
    const sessions = (listed.structuredContent as { sessions: Array<{ sessionId: string; uri: string }> }).sessions;
    expect(sessions.map((session) => session.sessionId)).toContain(sessionId);
    const unknown = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'hi', sessionId: 'no-such-session' } });
    expect(unknown.isError).toBe(true);
    expect(resultText(unknown)).toContain('Unknown session');
    const bad = await cli.client.callTool({ name: 'prompt', arguments: { sessionId } });
    expect(bad.isError).toBe(true);
  });
});

describe('a rate-limited model call on the MCP face', () => {
  it('is retried, the retry told to the host as progress, and the turn answers', async () => {
    const { cli } = shared;
    server.push({ status: 429, errorBody: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } }, { text: 'Answered after the retry.', chunkDelayMs: 15 });
    const progress: string[] = [];
    const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'hi' } }, { onprogress: (update) => void progress.push(update.message ?? '') });
    expect(resultText(result)).toBe('Answered after the retry.');
    expect(progress[0]).toMatch(/^\[warning\] The model endpoint .* answered HTTP 429 \(rate limited\): retrying in .* \(attempt 2 of 4\)\.$/);
    expect(requests()).toHaveLength(2);
  });
});

describe('the mounted agent with no model configured (the built CLI)', () => {
  it('in a host without sampling, prompt answers a tool error saying a model must be configured and how', async () => {
    const cwd = project();
    const cli = await startMcpCli({ cwd, capabilities: { elicitation: {} } });
    clis.push(cli);
    const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'hi' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('No model configured');
    expect(resultText(result)).toContain('does not offer sampling');
    expect(resultText(result)).toContain('--model anthropic:claude-sonnet-4-5');
    expect(resultText(result)).toContain('agent.model');
  });

  it('borrows the host model through MCP sampling', async () => {
    const cwd = project();
    const sampled: unknown[] = [];
    const cli = await startMcpCli({
      cwd,
      capabilities: { sampling: {} },
      configure: (client) => {
        client.setRequestHandler('sampling/createMessage', async (request) => {
          sampled.push(request.params);
          return { role: 'assistant', model: 'host-model', stopReason: 'endTurn', content: { type: 'text', text: 'Answered by the host model.' } };
        });
      },
    });
    clis.push(cli);
    const result = await cli.client.callTool({ name: 'prompt', arguments: { prompt: 'who answers?' } });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(resultText(result)).toBe('Answered by the host model.');
    expect(sampled.length).toBe(1);
    expect(requests()).toHaveLength(0);
  });
});
