import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../src/agent/create-agent.js';
import { configSchema } from '../src/config/schema.js';
import { resolveModel } from '../src/model/resolve-model.js';
import { median, percentile, round } from './stats.js';

type Wire = 'anthropic' | 'openai' | 'google';

/** The recorded streams of test/fixtures/provider-streams (vercel/ai's fixtures, Apache-2.0; provenance in its README). */
const FIXTURE: Record<Wire, string> = {
  anthropic: 'anthropic-text.chunks.txt',
  openai: 'openai-phase.1.chunks.txt',
  google: 'google-text.chunks.txt',
};
const MODEL: Record<Wire, string> = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5-mini', google: 'gemini-2.5-flash' };

// From dist/bench (built) or bench (source): the repository's root holds test/fixtures.
const root = [resolve(dirname(fileURLToPath(import.meta.url)), '../..'), resolve(dirname(fileURLToPath(import.meta.url)), '..')].find((dir) => {
  try {
    readFileSync(join(dir, 'test/fixtures/provider-streams', FIXTURE.anthropic));
    return true;
  } catch {
    return false;
  }
})!;

/** Each recorded stream framed as its API frames it (Anthropic and Responses: `event:`+`data:`; Gemini: `data:`). */
function sseBody(wire: Wire): string {
  const lines = readFileSync(join(root, 'test/fixtures/provider-streams', FIXTURE[wire]), 'utf8').split('\n').filter((line) => line.trim() !== '');
  return lines
    .map((line) => {
      const event = JSON.parse(line) as { type?: string };
      return `${wire !== 'google' && event.type ? `event: ${event.type}\n` : ''}data: ${JSON.stringify(event)}\n\n`;
    })
    .join('');
}

async function replayServer(): Promise<{ server: Server; url: string }> {
  const bodies = { anthropic: sseBody('anthropic'), openai: sseBody('openai'), google: sseBody('google') };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      const wire: Wire = path.includes('/messages') ? 'anthropic' : path.includes('/responses') ? 'openai' : 'google';
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(bodies[wire]);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const TEXT_MARK: Record<Wire, string> = { anthropic: '"text_delta"', openai: '"response.output_text.delta"', google: '"text"' };

/** The raw stream: request sent → the first byte carrying text (what any client pays). */
async function rawFirstText(wire: Wire, baseURL: string): Promise<number> {
  const path = wire === 'anthropic' ? '/messages' : wire === 'openai' ? '/responses' : `/models/${MODEL.google}:streamGenerateContent?alt=sse`;
  const started = performance.now();
  const response = await fetch(`${baseURL}${path}`, { method: 'POST', body: '{}' });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  let first = Number.NaN;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    seen += decoder.decode(read.value, { stream: true });
    if (Number.isNaN(first) && seen.includes(TEXT_MARK[wire])) first = performance.now() - started;
  }
  return first;
}

/**
 * Time to first token per native provider: the agent's first `text-delta` (prompt → session
 * turn → loop → the provider package's request and SSE parsing) against the raw stream of the
 * same local server replaying a recorded reply. The difference is what the agent and the AI
 * SDK provider add; no network, no model.
 */
export async function benchProviderTtft(runs = 40): Promise<Record<string, number>> {
  const { server, url } = await replayServer();
  const result: Record<string, number> = {};
  try {
    for (const wire of ['anthropic', 'openai', 'google'] as const) {
      const baseURL = wire === 'google' ? `${url}/v1beta` : `${url}/v1`;
      const agentConfig = configSchema.parse({ agent: { model: `${wire}:${MODEL[wire]}`, baseURL, apiKey: 'bench-key' } }).agent;
      const model = await resolveModel(agentConfig);
      const agent = createAgent({ model, tools: [] });
      const session = await agent.sessions.create({ cwd: mkdtempSync(join(tmpdir(), `plaited-bench-ttft-${wire}-`)) });
      const raw: number[] = [];
      const viaAgent: number[] = [];
      for (let run = 0; run < runs + 5; run++) {
        const rawMs = await rawFirstText(wire, baseURL);
        const started = performance.now();
        let first = Number.NaN;
        for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'hi' }] })) {
          if (Number.isNaN(first) && event.type === 'text-delta') first = performance.now() - started;
        }
        if (run < 5) continue; // warm-up: module loads, the first connection
        raw.push(rawMs);
        viaAgent.push(first);
      }
      await agent.stop();
      result[`${wire}RawFirstTextP50Ms`] = median(raw);
      result[`${wire}AgentFirstTextP50Ms`] = median(viaAgent);
      result[`${wire}AgentFirstTextP99Ms`] = percentile(viaAgent, 99);
      result[`${wire}OverheadP50Ms`] = round(median(viaAgent) - median(raw));
    }
  } finally {
    server.close();
  }
  return result;
}
