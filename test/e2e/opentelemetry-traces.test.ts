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
type OtlpPoint = { attributes: Array<{ key: string; value: OtlpValue }>; sum?: number; count?: number | string };
type Metric = { name: string; unit?: string; points: Array<{ attrs: Record<string, unknown>; sum: number; count: number }> };

async function startReceiver(): Promise<{ url: string; spans: Decoded[]; metrics: Metric[]; paths: string[]; server: Server }> {
  const spans: Decoded[] = [];
  const metrics: Metric[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      if (req.url === '/v1/metrics') {
        const body_ = JSON.parse(body) as { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string; unit?: string; histogram?: { dataPoints: OtlpPoint[] } }> }> }> };
        for (const resource of body_.resourceMetrics) {
          for (const scope of resource.scopeMetrics) {
            for (const metric of scope.metrics) {
              const points = (metric.histogram?.dataPoints ?? []).map((point) => ({ attrs: attributesOf(point.attributes), sum: Number(point.sum ?? 0), count: Number(point.count ?? 0) }));
              metrics.push({ name: metric.name, unit: metric.unit, points });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const parsed = JSON.parse(body) as { resourceSpans: Array<{ resource?: { attributes?: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resourceSpans of parsed.resourceSpans) {
        const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ service, span, attrs: attributesOf(span.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, metrics, paths, server };
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
        OTEL_METRIC_EXPORT_INTERVAL: '200',
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

    expect(receiver.paths).toContain('POST /v1/traces application/json');
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

    // The GenAI client metrics: token usage by type (cumulative: the latest export holds both calls), and call durations.
    const latest = (name: string) => receiver!.metrics.filter((metric) => metric.name === name).at(-1);
    const usageOf = (type: string) => latest('gen_ai.client.token.usage')?.points.find((point) => point.attrs['gen_ai.token.type'] === type);
    await waitFor(() => usageOf('input')?.count === 2, 15_000, 'the token usage metric');
    expect(usageOf('input')).toMatchObject({ sum: 230, count: 2, attrs: { 'gen_ai.request.model': 'scripted', 'gen_ai.operation.name': 'chat' } });
    expect(usageOf('output')).toMatchObject({ sum: 18, count: 2 });
    expect(latest('gen_ai.client.operation.duration')).toMatchObject({ unit: 's' });
    expect(latest('gen_ai.client.operation.duration')!.points[0]!.count).toBe(2);
  });

  it('telemetry that goes nowhere is said: an exporter not offered and a scheme-less endpoint at start, a failed export while serving', async () => {
    // A port nothing listens on: 2, privileged, so no server of a test beside this one can take it.
    const closed = 2;
    const cwd = bed.project();
    const cli = bed.start(cwd, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318',
        OTEL_TRACES_EXPORTER: 'otlp,zipkin',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
    });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'Traced into the void.' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })).stopReason).toBe('end_turn');
    await waitFor(() => cli.stderr().includes('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=collector:4318 is not an http(s) URL, so nothing is sent there'), 10_000, 'the endpoint warning');
    expect(cli.stderr()).toContain('OTEL_TRACES_EXPORTER names zipkin, which plaited-agent does not export to (only otlp');
    // The first failed export (traces to the scheme-less URL, or metrics to the closed port) is said; the rest are counted.
    await waitFor(() => /warn: telemetry: .+; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector answers/.test(cli.stderr()), 15_000, 'the export failure warning');
  });

  it('an exporter that is not offered, named alone (which turns traces off), is said at start', async () => {
    const cli = bed.start(bed.project(), { env: { OTEL_TRACES_EXPORTER: 'zipkin' } });
    await initialize(cli);
    await waitFor(() => cli.stderr().includes('OTEL_TRACES_EXPORTER names zipkin, which plaited-agent does not export to (only otlp'), 10_000, 'the exporter warning');
  });
});
