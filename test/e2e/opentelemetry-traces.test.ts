import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = acpTestBed({ prefix: 'plaited-otel-' });

type OtlpValue = { stringValue?: string; intValue?: number | string; arrayValue?: { values: OtlpValue[] } };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: Array<{ key: string; value: OtlpValue }>; status?: { code?: number } };
interface Decoded {
  service: string | undefined;
  span: OtlpSpan;
  attrs: Record<string, unknown>;
}

const plain = (value: OtlpValue): unknown =>
  value.arrayValue ? value.arrayValue.values.map(plain) : value.intValue !== undefined ? Number(value.intValue) : value.stringValue;
const attributesOf = (list: Array<{ key: string; value: OtlpValue }> = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

/** An OTLP/HTTP receiver on 127.0.0.1 that decodes the JSON trace exports it gets. */
async function startReceiver(): Promise<{ url: string; spans: Decoded[]; paths: string[]; server: Server }> {
  const spans: Decoded[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const parsed = JSON.parse(body) as { resourceSpans: Array<{ resource?: { attributes?: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resourceSpans of parsed.resourceSpans) {
        const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ service, span, attrs: attributesOf(span.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths, server };
}

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
});

describe('OpenTelemetry traces', () => {
  it('sends GenAI spans over OTLP/HTTP: invoke_agent per turn, chat per model call, execute_tool per tool, with token usage', async () => {
    receiver = await startReceiver();
    const cwd = bed.project();
    writeFileSync(join(cwd, 'notes.txt'), 'remember the milk\n');
    const cli = bed.start(cwd, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'plaited-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { text: 'It says to remember the milk.', usage: { prompt_tokens: 130, completion_tokens: 8 } },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is in notes.txt?' }] });
    expect(response.stopReason).toBe('end_turn');
    const spans = receiver.spans;
    await waitFor(() => spans.some((s) => s.span.name.startsWith('invoke_agent')) && spans.filter((s) => s.span.name.startsWith('chat')).length === 2, 15_000, 'the turn\'s spans');

    expect(receiver.paths[0]).toBe('POST /v1/traces application/json');
    const turn = spans.find((s) => s.span.name === 'invoke_agent plaited-agent')!;
    expect(turn.service).toBe('plaited-under-test');
    expect(turn.attrs).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': sessionId, 'gen_ai.usage.input_tokens': 230, 'gen_ai.usage.output_tokens': 18 });
    const chats = spans.filter((s) => s.span.name === 'chat scripted');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.span.parentSpanId).toBe(turn.span.spanId);
      expect(chat.span.traceId).toBe(turn.span.traceId);
      expect(chat.attrs['gen_ai.operation.name']).toBe('chat');
      expect(chat.attrs['gen_ai.request.model']).toBe('scripted');
    }
    expect(chats.map((chat) => chat.attrs['gen_ai.usage.input_tokens']).sort()).toEqual([100, 130]);
    expect(chats.map((chat) => (chat.attrs['gen_ai.response.finish_reasons'] as string[])[0]).sort()).toEqual(['stop', 'tool-calls']);
    await waitFor(() => spans.some((s) => s.span.name === 'execute_tool read_file'), 10_000, 'the tool span');
    const tool = spans.find((s) => s.span.name === 'execute_tool read_file')!;
    expect(tool.span.parentSpanId).toBe(turn.span.spanId);
    expect(tool.attrs).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file' });
  });
});
