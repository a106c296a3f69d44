import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRawCli, type RawJsonRpcCli } from '../helpers/raw-json-rpc-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

let model: ScriptedOpenAIServer;
const clis: RawJsonRpcCli[] = [];

beforeEach(async () => {
  model = await startScriptedOpenAIServer();
});
afterEach(async () => {
  for (const cli of clis.splice(0)) {
    await cli.close();
    expect(cli.violations, 'stdout carries only JSON-RPC').toEqual([]);
  }
  await model.close();
});

async function start(): Promise<{ cli: RawJsonRpcCli; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-hostile-mcp-'));
  const cli = startRawCli({ cwd, args: ['--adapter', 'mcp', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
  clis.push(cli);
  const init = await cli.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } });
  expect(init.result).toBeDefined();
  await cli.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return { cli, cwd };
}

const call = (cli: RawJsonRpcCli, name: string, args: unknown) => cli.request('tools/call', { name, arguments: args });
const toolText = (response: { result?: unknown }) => ((response.result as { content: Array<{ text: string }> }).content[0]?.text ?? '');

describe('the MCP server face under hostile input (the built CLI over stdio)', () => {
  it('answers lines over 10 MB and 32 MB and keeps answering pings', async () => {
    const { cli } = await start();
    model.push({ text: 'read it' });
    // 12 MB: over the MCP SDK's old read buffer, under our limit: served.
    const big = await call(cli, 'prompt', { prompt: 'x'.repeat(12 * 1024 * 1024) });
    expect(big.error).toBeUndefined();
    expect(toolText(big)).toBe('read it');
    await cli.write(`{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"prompt","arguments":{"prompt":"${'y'.repeat(40 * 1024 * 1024)}"}}}\n`);
    expect((await cli.response('huge')).error).toMatchObject({ code: -32600, data: { maxMessageBytes: 32 * 1024 * 1024 } });
    expect((await cli.request('ping')).result).toEqual({});
    expect(await cli.exitedWithin(200)).toBe('alive');
  });

  it('answers deep, malformed and batched messages, and bad params with -32602', async () => {
    const { cli } = await start();
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
    await cli.write(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"prompt","arguments":{"prompt":${deep}}}}\n`);
    await cli.write('{"jsonrpc":"1.0","id":"v1","method":"ping"}\n');
    await cli.write('{"jsonrpc":"2.0","id":"m-null","method":null}\n');
    await cli.write('[{"jsonrpc":"2.0","id":"b1","method":"ping"}]\n');
    await cli.write('{"jsonrpc":"2.0","id":"cut",\n');
    for (const id of ['deep', 'v1', 'm-null', 'b1']) expect((await cli.response(id)).error?.code, id).toBe(-32600);
    expect((await cli.request('logging/setLevel', { level: 'loud' })).error?.code).toBe(-32602);
    expect((await cli.request('logging/setLevel', { level: 'debug' })).result).toEqual({});
    expect((await cli.request('resources/read', { uri: 5 })).error?.code).toBe(-32602);
    expect((await cli.request('prompts/get', {})).error?.code).toBe(-32602);
    // An unknown session's transcript: the spec's resource-not-found (data.uri).
    const missing = await cli.request('resources/read', { uri: 'plaited://sessions/nope' });
    expect(missing.error).toMatchObject({ data: { uri: 'plaited://sessions/nope' } });
    expect([-32602, -32002]).toContain(missing.error?.code);
    expect((await cli.request('ping')).result).toEqual({});
  });

  it('refuses hostile session folders in new_session and list_sessions without creating anything', async () => {
    const { cli, cwd } = await start();
    writeFileSync(join(cwd, 'file.txt'), 'x');
    const missing = join(cwd, 'missing', 'deeper');
    for (const bad of ['/proc/self', '/proc', '/sys/kernel', missing, '/', `${cwd}/../..`, 'relative', `${cwd}\nx`, `${cwd}\u0000x`, join(cwd, 'file.txt'), '/dev/null', `/${'z'.repeat(5000)}`]) {
      for (const tool of ['new_session', 'list_sessions']) {
        const response = await call(cli, tool, { cwd: bad });
        expect((response.result as { isError?: boolean }).isError, `${tool} ${bad.slice(0, 60)}`).toBe(true);
        expect(toolText(response)).toMatch(/^Invalid arguments: cwd /);
      }
    }
    expect(existsSync(join(cwd, 'missing'))).toBe(false);
    const created = await call(cli, 'new_session', { cwd });
    expect((created.result as { structuredContent: { cwd: string } }).structuredContent.cwd).toBe(cwd);
  });
});
