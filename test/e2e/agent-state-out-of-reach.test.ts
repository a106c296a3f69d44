import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';

/**
 * Issue 21 item 11, through the built CLI on the HTTP face: two principals share one
 * project; bob's tools cannot read alice's transcript out of the agent's own state
 * (`.plaited/state/`: the session store and its WAL), however they name it.
 */

const ACP_URL = /ACP over HTTP at (http:\/\/\S+\/acp)/;
const ALICE = 'alice-token-0123456789abcdefghij';
const ALICE_SECRET = 'alice-private-transcript-5521';
let model: ScriptedOpenAIServer;
let cli: HttpCli | undefined;
const clients: AcpHttpClient[] = [];

/** Bob's probes: a search of `.plaited` and of the project, the store's files by name (new and old place) and through a link, a listing. */
const BOB_PROBES = [
  { name: 'grep', arguments: { pattern: 'alice-private', path: '.plaited' } },
  { name: 'grep', arguments: { pattern: 'alice-private', glob: '*.db*' } },
  { name: 'read_file', arguments: { path: '.plaited/state/state.db-wal' } },
  { name: 'read_file', arguments: { path: '.plaited/state/state.db' } },
  { name: 'read_file', arguments: { path: 'state-link' } },
  { name: 'grep', arguments: { pattern: 'alice-private', path: '.plaited/state.db-wal' } },
  { name: 'read_file', arguments: { path: '.plaited/state.db-wal' } },
  { name: 'glob', arguments: { pattern: '**/*', path: '.plaited' } },
  // An allowed command: the read-only layer hides the state folder from it (bubblewrap is on every test machine).
  { name: 'bash', arguments: { command: 'cat .plaited/state/state.db* 2>&1; grep -ra transcript-55 .plaited 2>&1; echo probed' } },
];

beforeAll(async () => {
  model = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'looked' };
    const asked = JSON.stringify(last?.content ?? '');
    if (asked.includes('bob looks')) return { toolCalls: BOB_PROBES };
    return { text: `noted: ${ALICE_SECRET}` };
  });
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await cli?.close();
  cli = undefined;
});
afterAll(async () => {
  await model?.close();
});

describe("the agent's own state is outside every tool's reach", () => {
  it("bob's grep, read_file and glob of the state files find nothing of alice's transcript", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-state-'));
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ server: { auth: { principals: { alice: ALICE } } }, tools: { allow: ['grep', 'read_file', 'glob', 'bash'] } }));
    // Something ordinary in .plaited that a search should find, so an empty answer proves the exclusion, not a broken search.
    writeFileSync(join(cwd, '.plaited/public-note.md'), 'alice-private-public-note\n');
    cli = await startHttpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url], urlPattern: ACP_URL });
    // A link elsewhere in the project that leads into the state folder.
    symlinkSync(join(cwd, '.plaited/state/state.db'), join(cwd, 'state-link'));

    const alice = connectAcpHttp(cli.url, { token: ALICE });
    clients.push(alice);
    await initializeHttp(alice);
    const own = await alice.agent.request('session/new', { cwd, mcpServers: [] });
    await alice.agent.request('session/prompt', { sessionId: own.sessionId, prompt: [{ type: 'text', text: `remember ${ALICE_SECRET}` }] });

    const bob = connectAcpHttp(cli.url);
    clients.push(bob);
    await initializeHttp(bob);
    const session = await bob.agent.request('session/new', { cwd, mcpServers: [] });
    await bob.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'bob looks' }] });

    const results = bob.updates
      .filter((update) => update.sessionId === session.sessionId && update.update.sessionUpdate === 'tool_call_update')
      .map((update) => JSON.stringify(update.update));
    const seen = results.join('\n');
    expect(seen).not.toContain('transcript-5521');
    expect(seen).toContain('public-note');
    expect(seen).toContain('probed');
    expect(seen).toMatch(/the agent's own state/);
    // The model never got it either (tool results go back to it).
    expect(JSON.stringify(model.requests.at(-1)?.messages)).not.toContain('transcript-5521');
  }, 90_000);
});
