import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { acpWebSocketTarget, FUZZ_MAX_MESSAGE_BYTES, mcpHttpTarget, stdioTarget, type FuzzTarget } from './fuzz-targets.js';
import { fuzzSettings, hostileCwd, hostileLine, type FaceSpec, type HostileLine } from './hostile-messages.js';

/**
 * Property-based fuzzing of both protocol faces over stdio and HTTP, through the built CLI:
 * whatever arrives, every request with an id is answered, the process (and the connection)
 * lives, the agent writes nothing but JSON-RPC, and a normal prompt still works afterwards.
 * `npm test` runs a bounded number of cases with a fixed seed; `npm run fuzz` runs more
 * (FUZZ_RUNS, FUZZ_SEED).
 */
const REPLY = 'fuzz-ok';
let model: ScriptedOpenAIServer;
const settings = fuzzSettings();
const timeout = 60_000 + settings.numRuns * 4_000;

beforeAll(async () => {
  model = await startScriptedOpenAIServer(() => ({ text: REPLY }));
});
afterAll(async () => {
  await model?.close();
});

const modelArgs = () => ['--model', 'openai-compatible:scripted', '--base-url', model.url];

const hostileData = fc.oneof(fc.constantFrom('!!!not base64', '', 'aGVsbG8=', '====', 'a', 'aGVsbG8', '\u0000'), fc.string({ maxLength: 30 }), fc.base64String({ maxLength: 40 }));
const hostileMime = fc.oneof(fc.constantFrom('image/png', 'image/jpeg', 'text/plain', '', 'not a mime', 'image/', '/png', 'image/png\n'), fc.string({ maxLength: 20 }));

function contentBlock(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 50 }) }),
    fc.record({ type: fc.constant('image'), data: hostileData, mimeType: hostileMime }),
    fc.record({ type: fc.constant('audio'), data: hostileData, mimeType: hostileMime }),
    fc.record({ type: fc.constant('resource'), resource: fc.oneof(fc.record({ uri: fc.string({ maxLength: 30 }), text: fc.string({ maxLength: 30 }) }), fc.record({ uri: fc.string({ maxLength: 30 }), blob: hostileData })) }),
    fc.record({ type: fc.constant('resource_link'), uri: fc.string({ maxLength: 30 }), name: fc.string({ maxLength: 30 }) }),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

function acpSpec(target: FuzzTarget, sessionId: string): FaceSpec {
  const session = fc.constantFrom(sessionId, 'no-such-session', '', '../../etc');
  const mcpServers = fc.constantFrom([], null, 'x', [1], [{}], [{ name: 5 }]);
  return {
    methods: {
      initialize: { protocolVersion: fc.constantFrom(1, 0, 2, -1, 65536), clientCapabilities: fc.constant({}) },
      'session/new': { cwd: hostileCwd(target.cwd), mcpServers },
      'session/load': { sessionId: session, cwd: hostileCwd(target.cwd), mcpServers },
      'session/list': { cwd: hostileCwd(target.cwd), cursor: fc.oneof(fc.constantFrom('1e9', '5.5', '0x10', '0', '-1', 'eyJ2IjoxLCJvZmZzZXQiOjB9'), fc.string({ maxLength: 20 })) },
      'session/set_mode': { sessionId: session, modeId: fc.constantFrom('default', 'plan', 'accept-edits', 'root', '') },
      'session/prompt': { sessionId: session, prompt: fc.array(contentBlock(), { maxLength: 4 }) },
      'session/cancel': { sessionId: session },
      'no/such_method': {},
    },
  };
}

function mcpSpec(target: FuzzTarget, sessionId: string): FaceSpec {
  const session = fc.constantFrom(sessionId, 'no-such-session', '');
  return {
    methods: {
      ping: {},
      initialize: { protocolVersion: fc.constantFrom('2025-06-18', '1999-01-01', 0), capabilities: fc.constant({}), clientInfo: fc.constant({ name: 'fuzz', version: '1' }) },
      'tools/list': { cursor: fc.string({ maxLength: 10 }) },
      'tools/call': {
        name: fc.constantFrom('prompt', 'new_session', 'list_sessions', 'no_such_tool'),
        arguments: fc.oneof(
          fc.record({ prompt: fc.string({ maxLength: 40 }), sessionId: session }, { requiredKeys: [] }),
          fc.record({ cwd: hostileCwd(target.cwd), mode: fc.constantFrom('default', 'plan', 'x') }, { requiredKeys: [] }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      'resources/list': {},
      'resources/templates/list': {},
      'resources/read': { uri: fc.constantFrom(`plaited://sessions/${sessionId}`, 'plaited://sessions/nope', 'plaited://sessions/', 'file:///etc/passwd', 'x', '') },
      'prompts/list': {},
      'prompts/get': { name: fc.string({ maxLength: 10 }), arguments: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })) },
      'logging/setLevel': { level: fc.constantFrom('debug', 'info', 'loud', '', 'EMERGENCY') },
      'completion/complete': { ref: fc.jsonValue({ maxDepth: 1 }), argument: fc.jsonValue({ maxDepth: 1 }) },
      'no/such_method': {},
    },
  };
}

/**
 * Runs the property: each case sends 1–4 hostile lines and demands an answer to every tracked id.
 * Over WebSocket (`oversized: false`) a frame over the limit closes the socket with 1009 as RFC 6455
 * has it (tested on its own). Every face answers each request of a batch with its own error.
 */
async function fuzz(target: FuzzTarget, spec: FaceSpec, options: { oversized: boolean }): Promise<void> {
  const line = hostileLine(spec, { maxBytes: FUZZ_MAX_MESSAGE_BYTES });
  const lines = options.oversized ? line : line.filter((candidate) => !candidate.label.startsWith('oversized'));
  await fc.assert(
    fc.asyncProperty(fc.array(lines, { minLength: 1, maxLength: 4 }), async (batch: HostileLine[]) => {
      for (const hostile of batch) await target.send(hostile.text);
      for (const hostile of batch) {
        for (const id of hostile.expect) {
          const response = await target.response(id).catch((error: Error) => {
            throw new Error(`${hostile.label}: ${error.message}`);
          });
          expect(response.result !== undefined || response.error !== undefined, hostile.label).toBe(true);
        }
      }
      expect(target.alive(), 'the process and the connection live').toBe(true);
    }),
    { numRuns: settings.numRuns, seed: settings.seed, endOnFailure: true },
  );
  expect(target.violations, 'stdout carries only JSON-RPC').toEqual([]);
}

describe.each([
  { name: 'ACP over stdio', open: async () => stdioTarget(modelArgs()), oversized: true },
  { name: 'ACP over WebSocket (HTTP server)', open: () => acpWebSocketTarget([...modelArgs(), '--transport', 'http', '--port', '0']), oversized: false },
])('fuzzing $name', ({ open, oversized }) => {
  it('answers every request, lives, writes only JSON-RPC, and still runs a prompt', { timeout }, async () => {
    const target = await open();
    try {
      expect((await target.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).result).toBeDefined();
      const created = await target.request('session/new', { cwd: target.cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      await fuzz(target, acpSpec(target, sessionId), { oversized });
      const fresh = await target.request('session/new', { cwd: target.cwd, mcpServers: [] });
      const turn = await target.request('session/prompt', { sessionId: (fresh.result as { sessionId: string }).sessionId, prompt: [{ type: 'text', text: 'hello' }] });
      expect(turn.result).toEqual({ stopReason: 'end_turn' });
    } finally {
      await target.close();
    }
  });
});

describe.each([
  { name: 'MCP over stdio', open: async () => stdioTarget([...modelArgs(), '--adapter', 'mcp']) },
  { name: 'MCP over streamable HTTP', open: () => mcpHttpTarget([...modelArgs(), '--adapter', 'mcp', '--transport', 'http', '--port', '0']) },
])('fuzzing $name', ({ open }) => {
  it('answers every request, lives, writes only JSON-RPC, and still runs a prompt', { timeout }, async () => {
    const target = await open();
    try {
      const init = await target.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } });
      expect(init.result).toBeDefined();
      await target.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      const created = await target.request('tools/call', { name: 'new_session', arguments: {} });
      const sessionId = (created.result as { structuredContent: { sessionId: string } }).structuredContent.sessionId;
      await fuzz(target, mcpSpec(target, sessionId), { oversized: true });
      const turn = await target.request('tools/call', { name: 'prompt', arguments: { prompt: 'hello' } });
      expect((turn.result as { content: Array<{ text: string }> }).content[0]!.text).toBe(REPLY);
    } finally {
      await target.close();
    }
  });
});
