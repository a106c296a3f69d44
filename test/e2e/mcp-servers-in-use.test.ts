import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as acp from '@agentclientprotocol/sdk';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor, waitForAsync } from '../helpers/wait-for.js';
import { startHttpFixture } from '../mcp/fixture-servers.js';
import type { RecordedRequest } from '../helpers/scripted-openai-server.js';

// The user of many MCP servers, through the built CLI on the scripted model: what the model is
// offered and gets back when servers change their catalogs, answer hugely or hand out resources.
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixtureServer = join(fixtures, 'mcp/fixture-server.mjs');
const answersServer = join(fixtures, 'mcp/answers-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-mcp-in-use-' });

function project(servers: Array<Record<string, unknown>>): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(
    join(cwd, '.plaited/config.json'),
    JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, mcp: { servers } }),
  );
  return cwd;
}

const fixture = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  transport: 'stdio',
  command: process.execPath,
  args: [fixtureServer, '--name', id],
  ...extra,
});

async function session(cwd: string): Promise<{ cli: AcpCli; sessionId: string }> {
  const cli = bed.start(cwd);
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  return { cli, sessionId };
}

const answers = (id: string, extra: Record<string, unknown> = {}) => ({ id, transport: 'stdio', command: process.execPath, args: [answersServer], ...extra });

const offered = (request: RecordedRequest) => request.tools?.map((tool) => tool.function.name) ?? [];
const toolMessages = (request: RecordedRequest) =>
  (request.messages as Array<{ role: string; content: unknown }>).filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content));

describe('MCP servers in use', () => {
  it('a tool that makes its server add tools (tools/list_changed) is followed by a step that is offered them and can call them', async () => {
    const { cli, sessionId } = await session(project([fixture('fx')]));
    bed.server.push(
      { toolCalls: [{ name: 'mcp__fx__add_tool', arguments: { name: 'brand_new' } }] },
      { toolCalls: [{ name: 'mcp__fx__brand_new', arguments: {} }] },
      { text: 'done' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'switch on brand_new and use it' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(offered(bed.server.requests[before]!)).not.toContain('mcp__fx__brand_new');
    expect(offered(bed.server.requests[before + 1]!)).toContain('mcp__fx__brand_new');
    expect(toolMessages(bed.server.requests[before + 2]!).at(-1)).toContain('brand_new ran');
  });

  it("a server's 3 MB answer reaches the model cut to mcp.servers[].maxResultChars (100,000 by default), saying so", async () => {
    const { cli, sessionId } = await session(project([answers('big'), answers('small', { maxResultChars: 50 })]));
    bed.server.push({ toolCalls: [{ name: 'mcp__big__huge', arguments: { chars: 3_000_000 } }, { name: 'mcp__small__huge', arguments: { chars: 200 } }] }, { text: 'done' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fetch everything' }] });
    const [big, small] = toolMessages(bed.server.requests.at(-1)!);
    expect(big!.length).toBeLessThan(101_000);
    expect(big).toContain('start hhh');
    expect(big).toContain('characters cut: the answer had 3000006 characters, over the limit of 100000 (mcp.servers[].maxResultChars)');
    expect(small).toContain('the answer had 206 characters, over the limit of 50');
    // The session goes on: the next prompt's request does not carry the 3 MB either.
    bed.server.push({ text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages).length).toBeLessThan(150_000);
  });

  it("the model lists the servers' resources, reads a listed one, a tool's resource link, a templated URI and an image, and an unknown URI is an error naming the way; a link to an unlisted resource reads from the server that gave it", async () => {
    const { cli, sessionId } = await session(project([fixture('fx')]));
    bed.server.push(
      { toolCalls: [{ name: 'mcp__fx__link', arguments: {} }] },
      { toolCalls: [{ name: 'read_resource', arguments: { uri: 'fixture://readme' } }] },
      { toolCalls: [{ name: 'list_resources', arguments: { query: 'release notes' } }] },
      { toolCalls: [{ name: 'read_resource', arguments: { uri: 'fixture://notes/7' } }, { name: 'read_resource', arguments: { uri: 'fixture://logo.png' } }] },
      { toolCalls: [{ name: 'read_resource', arguments: { uri: 'fixture://nowhere' } }] },
      { toolCalls: [{ name: 'mcp__fx__link', arguments: { report: 'q3' } }] },
      { toolCalls: [{ name: 'read_resource', arguments: { uri: 'fixture-report://q3' } }] },
      { text: 'done' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the readme the link points to' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(offered(bed.server.requests[before]!)).toEqual(expect.arrayContaining(['list_resources', 'read_resource']));
    const results = toolMessages(bed.server.requests.at(-1)!);
    expect(results[0]).toContain('Resource link: readme <fixture://readme>');
    expect(results[1]).toContain('Fixture readme: call echo to echo.');
    expect(results[2]).toContain('fixture://changelog (fx) changelog: Release notes of the fixture server [text/markdown]');
    expect(results[3]).toContain('note 7');
    expect(results[4]).toContain('image-data');
    expect(results[5]).toContain('Could not read fixture://nowhere');
    expect(results[5]).toContain('list_resources shows the resources and URI templates offered');
    // A link to a resource the server never listed (MCP does not promise it is): read from the server that gave it.
    expect(results[6]).toContain('Resource link: report q3 <fixture-report://q3>');
    expect(results[7]).toContain('report q3: all green');
  });

  it('a tool that reports progress runs past its timeoutMs, its progress shown on the call; a silent one times out with an error naming the limit and the setting', async () => {
    const { cli, sessionId } = await session(project([answers('slow', { timeoutMs: 3_000 })]));
    bed.server.push(
      { toolCalls: [{ name: 'mcp__slow__progress', arguments: { steps: 5, intervalMs: 1_000 } }] },
      { toolCalls: [{ name: 'mcp__slow__never', arguments: {} }] },
      { text: 'done' },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'build it' }] });
    expect(response.stopReason).toBe('end_turn');
    const [worked, silent] = toolMessages(bed.server.requests.at(-1)!);
    expect(worked).toContain('finished after 5 steps');
    const progress = cli.updates.filter((n) => n.update.sessionUpdate === 'tool_call_update' && JSON.stringify(n.update).includes('working on step 3 (3/5)'));
    expect(progress.length).toBeGreaterThan(0);
    expect(silent).toContain('did not answer tools/call in time: not within 3000 ms');
    expect(silent).toContain('mcp.servers[].timeoutMs');
  });

  it("a user who takes longer than the server's timeoutMs to answer its question (elicitation) still gets the call answered", async () => {
    const cwd = project([fixture('fx', { timeoutMs: 1_500 })]);
    let cli: AcpCli | undefined;
    cli = bed.start(cwd, {
      args: ['--log-level', 'debug'],
      configureClient: (app) =>
        app.onRequest('elicitation/create', async () => {
          // The user answers only once the call's timeout has passed (the agent says it holds it).
          await waitFor(() => cli!.stderr().includes('tools/call ask waits on an answer from the user; its 1500 ms timeout waits too'), 15_000, 'the timeout held');
          return { action: 'accept', content: { answer: '42' } };
        }),
    });
    await initialize(cli, { elicitation: { form: {} } });
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'mcp__fx__ask', arguments: { question: 'What is the answer?' } }] }, { text: 'Thanks.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask me' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(toolMessages(bed.server.requests.at(-1)!).at(-1)).toContain('accept: {\\"answer\\":\\"42\\"}');
  });

  it('two tools of a server whose names normalize alike (lookup.user, lookup_user) are both offered under distinct names, and each calls its own', async () => {
    const { cli, sessionId } = await session(project([answers('ans')]));
    bed.server.push({ text: 'looked' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'which tools?' }] });
    const names = offered(bed.server.requests.at(-1)!).filter((name) => name.startsWith('mcp__ans__lookup_user'));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    bed.server.push({ toolCalls: names.map((name) => ({ name, arguments: {} })) }, { text: 'done' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look both up' }] });
    const results = toolMessages(bed.server.requests.at(-1)!).slice(-2).join('\n');
    expect(results).toContain('lookup.user ran');
    expect(results).toContain('lookup_user ran');
  });

  it('a JSON config names its secrets as ${VARIABLE}s from the environment; one that is unset fails that server alone, naming it', async () => {
    const fixture = await startHttpFixture(['--token', 'docs-token-from-the-environment']);
    try {
      const url = `http://127.0.0.1:${fixture.port}/mcp`;
      const cwd = project([
        { id: 'docs', transport: 'http', url, auth: { type: 'bearer', token: '${DOCS_TOKEN}' } },
        { id: 'wiki', transport: 'http', url, headers: { Authorization: 'Bearer ${WIKI_TOKEN}' } },
      ]);
      const cli = bed.start(cwd, { env: { DOCS_TOKEN: 'docs-token-from-the-environment' } });
      await initialize(cli);
      // A server an ACP client sends may not read the agent's environment: its ${DOCS_TOKEN} stays as written.
      const fromClient: acp.McpServer = { type: 'http', name: 'client', url, headers: [{ name: 'Authorization', value: 'Bearer ${DOCS_TOKEN}' }] };
      const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [fromClient] });
      bed.server.push({ toolCalls: [{ name: 'mcp__docs__echo', arguments: { text: 'authorized' } }] }, { text: 'done' });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo through docs' }] });
      expect(toolMessages(bed.server.requests.at(-1)!).at(-1)).toContain('echo: authorized');
      const told = () => cli.updates.map((n) => JSON.stringify(n.update)).find((update) => update.includes('MCP server \\"wiki\\" is unavailable'));
      await waitFor(() => told() !== undefined, 15_000, 'the notice about "wiki"');
      expect(told()).toContain('the environment variable WIKI_TOKEN (used in its headers.Authorization) is not set');
      expect(offered(bed.server.requests.at(-1)!).some((name) => name.startsWith('mcp__client__'))).toBe(false);
      await waitFor(() => cli.updates.some((n) => JSON.stringify(n.update).includes('MCP server \\"client\\" is unavailable: server \\"client\\" rejected the credentials')), 15_000, 'the client server refused');
    } finally {
      await fixture.stop();
    }
  });

  it('a URL that answers 404 or a web page is named as no MCP endpoint and not retried; a result that breaks its outputSchema blames the server, not the arguments', async () => {
    const web = createServer((request, response) => {
      response.writeHead(request.url === '/page' ? 200 : 404, { 'content-type': 'text/html' }).end('<html>a web site</html>');
    });
    await new Promise<void>((listening) => web.listen(0, '127.0.0.1', listening));
    try {
      const base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
      const cwd = project([
        { id: 'gone', transport: 'http', url: `${base}/wrong-path` },
        { id: 'site', transport: 'http', url: `${base}/page` },
        answers('ans'),
      ]);
      const { cli, sessionId } = await session(cwd);
      bed.server.push({ toolCalls: [{ name: 'mcp__ans__count', arguments: {} }] }, { text: 'done' });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'count' }] });
      const counted = toolMessages(bed.server.requests.at(-1)!).at(-1);
      expect(counted).toContain("answered tools/call with a result its tool's own outputSchema refuses");
      expect(counted).toContain('the server is at fault, not the arguments');
      expect(counted).not.toContain('-32602');
      const listed = async () => {
        await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/mcp' }] });
        return cli.updates.map((n) => JSON.stringify(n.update)).filter((update) => update.includes('MCP servers:')).at(-1) ?? '';
      };
      await waitForAsync(async () => (await listed()).split('): failed').length === 3, 15_000, 'both listed as failed');
      const shown = await listed();
      expect(shown).toContain('server \\"gone\\": its url answered HTTP 404, not MCP; check mcp.servers[].url');
      expect(shown).toContain('server \\"site\\": its url answered with a web page (text/html), not MCP');
    } finally {
      web.close();
    }
  });

  it('an HTTP server that restarted (it answers 404 to the old session) gets a new session, and the call goes through', async () => {
    let fixture = await startHttpFixture();
    try {
      const { cli, sessionId } = await session(project([{ id: 'web', transport: 'http', url: `http://127.0.0.1:${fixture.port}/mcp` }]));
      bed.server.push({ toolCalls: [{ name: 'mcp__web__echo', arguments: { text: 'before' } }] }, { text: 'done' });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo before' }] });
      expect(toolMessages(bed.server.requests.at(-1)!).at(-1)).toContain('echo: before');
      await fixture.stop();
      fixture = await startHttpFixture(['--port', String(fixture.port)]);
      bed.server.push({ toolCalls: [{ name: 'mcp__web__echo', arguments: { text: 'after the restart' } }] }, { text: 'done' });
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo after' }] });
      expect(toolMessages(bed.server.requests.at(-1)!).at(-1)).toContain('echo: after the restart');
    } finally {
      await fixture.stop();
    }
  });

  it('an image a model cannot take (an SVG chart) is left out of the answer with a line saying so; the rest of the answer stays', async () => {
    const { cli, sessionId } = await session(project([answers('ans')]));
    bed.server.push({ toolCalls: [{ name: 'mcp__ans__svg', arguments: {} }] }, { text: 'done' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'draw it' }] });
    expect(response.stopReason).toBe('end_turn');
    const drawn = toolMessages(bed.server.requests.at(-1)!).at(-1);
    expect(drawn).toContain('the chart:');
    expect(drawn).toContain('[image image/svg+xml, ');
    expect(drawn).toContain('left out: models take only image/png, image/jpeg, image/gif, image/webp]');
    expect(drawn).not.toContain('image-data');
  });

  it("the servers' instructions (from initialize) reach the model's system prompt from the first turn, capped", async () => {
    const rules = 'Always call echo before add; the sums are in cents.';
    const { cli, sessionId } = await session(
      project([
        fixture('fx', { args: [fixtureServer, '--name', 'fx', '--instructions', rules] }),
        fixture('long', { args: [fixtureServer, '--name', 'long', '--instructions', `Long. ${'z'.repeat(5_000)}`] }),
      ]),
    );
    bed.server.push({ text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'add 2 and 3' }] });
    const system = JSON.stringify((bed.server.requests.at(-1)!.messages as Array<{ role: string; content: unknown }>).filter((message) => message.role === 'system'));
    expect(system).toContain(`## fx\\n${rules}`);
    expect(system).toContain('## long\\nLong. zzz');
    expect(system).toContain('more characters cut]');
    expect(system.length).toBeLessThan(40_000);
  });

  it("the servers' prompts are slash commands beside the skills and /mcp: /fx:greet sends the rendered prompt, a missing argument or a failing server is an error without a model call, and a prompts/list_changed is announced", async () => {
    const cwd = project([fixture('fx')]);
    mkdirSync(join(cwd, '.plaited/skills/deploy'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/skills/deploy/SKILL.md'), '---\nname: deploy\ndescription: Deploys the project.\n---\n\nDeploy it.\n');
    const cli = bed.start(cwd);
    await initialize(cli);
    const editors: acp.McpServer = { name: 'ed', command: process.execPath, args: [fixtureServer, '--name', 'ed'], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [editors] });
    const latest = () =>
      (cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update').at(-1)?.update as acp.AvailableCommandsUpdate | undefined)
        ?.availableCommands ?? [];
    const names = () => latest().map((command) => command.name).sort().join(' ');
    const all = 'deploy ed:greet ed:review ed:summarize fx:greet fx:review fx:summarize mcp permissions';
    await waitFor(() => names() === all, 20_000, 'skills, /mcp, /permissions and both servers\' prompts in one list');
    expect(latest().find((command) => command.name === 'fx:greet')).toMatchObject({ description: 'Writes a greeting for someone', input: { hint: '<name> [style]' } });

    bed.server.push({ text: 'greeted' });
    const before = bed.server.requests.length;
    const done = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet Ann style=formal' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(bed.server.requests).toHaveLength(before + 1);
    const user = JSON.stringify(bed.server.requests.at(-1)!.messages.at(-1));
    expect(user).toContain('Good day, Ann.');
    expect(user).toContain('the prompt \\"greet\\" of the MCP server \\"fx\\"');
    expect(user).not.toContain('style=formal');

    const missing = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:review' }] });
    await expect(missing).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('/fx:review needs the argument "diff". Usage: /fx:review <diff>') });
    const failing = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet Ann style=fail' }] });
    await expect(failing).rejects.toMatchObject({ message: expect.stringMatching(/The MCP server "fx" could not give its prompt "greet" \(\/fx:greet\): .*fails on purpose/) });
    const typo = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:gret Ann' }] });
    await expect(typo).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('There is no /fx:gret: did you mean /fx:greet?') });
    expect(bed.server.requests).toHaveLength(before + 1);

    // The model makes the server add a prompt; its prompts/list_changed re-announces the whole list.
    bed.server.push({ toolCalls: [{ name: 'mcp__fx__add_tool', arguments: { name: 'pair', kind: 'prompt' } }] }, { text: 'added' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'add a prompt named pair' }] });
    await waitFor(() => names() === all.replace('fx:greet', 'fx:greet fx:pair'), 20_000, 'fx:pair announced with the rest');
    bed.server.push({ text: 'paired' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:pair rust' }] });
    const dialogue = JSON.stringify(bed.server.requests.at(-1)!.messages.at(-1));
    expect(dialogue).toContain('pair about rust');
    expect(dialogue).toContain('Assistant (in the prompt): Understood.');
    expect(dialogue).toContain('data:image/png;base64,');
  });

  it("an editor's server that takes longer to start than session/new waits for (5 s) is still offered to the session's first prompt", async () => {
    const cwd = project([]);
    const cli = bed.start(cwd);
    await initialize(cli);
    const slow: acp.McpServer = { name: 'slow', command: process.execPath, args: [fixtureServer, '--name', 'slow', '--start-delay', '7000'], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [slow] });
    bed.server.push({ text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo hello' }] });
    expect(offered(bed.server.requests.at(-1)!)).toContain('mcp__slow__echo');
  });
});
