import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Agent } from '../agent/agent.js';
import type { ModelObserver } from '../agent/observe-models.js';
import type { AgentOutput } from '../contracts/agent-output.js';
import { watchModelCalls, type ModelStepRecord } from '../model/log-model-calls.js';
import { startGenAiMetrics } from './genai-metrics.js';
import { telemetryDiagnostics } from './telemetry-diagnostics.js';

export interface Telemetry {
  /** Wraps a model so each call is a `chat` span under its turn's `invoke_agent` span. */
  observeModel: ModelObserver;
  /** Makes each turn an `invoke_agent` span, each tool call an `execute_tool` span; `stop` flushes the spans. */
  trace(agent: Agent): void;
}

const AGENT_NAME = 'plaited-agent';

/**
 * OpenTelemetry traces (and the GenAI client metrics) following the GenAI semantic conventions, exported over OTLP/HTTP
 * (JSON) to where the standard `OTEL_EXPORTER_OTLP_*` variables say (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*` too). Imported only when `telemetryEnabled()`.
 */
export async function startTelemetry(version: string, warn: (message: string) => void): Promise<Telemetry> {
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  await telemetryDiagnostics(warn);
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/json') warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; traces are sent as http/json`);
  const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? AGENT_NAME, 'service.version': version }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  const tracer = provider.getTracer(AGENT_NAME, version);
  const metrics = await startGenAiMetrics(resource, version);
  /** The running turn's span, in the turn's async context: a model call finds its parent there. */
  const turns = new AsyncLocalStorage<Span>();
  return {
    observeModel: (model) =>
      watchModelCalls(model, () => {
        const parent = turns.getStore();
        const startTime = new Date();
        return (record) => {
          chatSpan(tracer, record, startTime, parent);
          metrics?.record(record);
        };
      }),
    trace(agent) {
      const process = agent.process.bind(agent);
      agent.process = (input, options) => tracedTurn(tracer, turns, input.sessionId, () => process(input, options));
      const stop = agent.stop.bind(agent);
      agent.stop = async () => {
        await stop();
        await provider.shutdown().catch((error: unknown) => warn(`could not send the last traces: ${String(error)}`));
        await metrics?.shutdown().catch((error: unknown) => warn(`could not send the last metrics: ${String(error)}`));
      };
    },
  };
}

function chatSpan(tracer: Tracer, record: ModelStepRecord, startTime: Date, parent: Span | undefined): void {
  const span = tracer.startSpan(
    `chat ${record.model}`,
    {
      kind: SpanKind.CLIENT,
      startTime,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': record.provider.split('.')[0] ?? record.provider,
        'gen_ai.request.model': record.model,
        ...(record.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': record.inputTokens } : {}),
        ...(record.outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': record.outputTokens } : {}),
        ...(record.stopReason ? { 'gen_ai.response.finish_reasons': [record.stopReason] } : {}),
      },
    },
    parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
  );
  if (record.error !== undefined) {
    span.setAttribute('error.type', 'model_call_failed');
    span.setStatus({ code: SpanStatusCode.ERROR, message: record.error });
  }
  span.end();
}

async function* tracedTurn(tracer: Tracer, turns: AsyncLocalStorage<Span>, sessionId: string, run: () => AsyncIterable<AgentOutput>): AsyncIterable<AgentOutput> {
  const span = tracer.startSpan(`invoke_agent ${AGENT_NAME}`, {
    kind: SpanKind.INTERNAL,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': AGENT_NAME, 'gen_ai.conversation.id': sessionId },
  });
  const tools = new Map<string, Span>();
  // The turn's work starts inside the span's async context, so its model calls find it.
  const iterator = turns.run(span, () => run()[Symbol.asyncIterator]());
  try {
    for (;;) {
      const next = await turns.run(span, () => iterator.next());
      if (next.done) break;
      recordEvent(tracer, span, tools, next.value);
      yield next.value;
    }
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    for (const open of tools.values()) open.end();
    span.end();
  }
}

function recordEvent(tracer: Tracer, turn: Span, tools: Map<string, Span>, event: AgentOutput): void {
  if (event.type === 'tool-call' && !tools.has(event.toolCallId)) {
    const span = tracer.startSpan(
      `execute_tool ${event.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.toolCallId, 'gen_ai.tool.type': 'function' },
      },
      trace.setSpan(ROOT_CONTEXT, turn),
    );
    tools.set(event.toolCallId, span);
  } else if (event.type === 'tool-call-update' && (event.status === 'completed' || event.status === 'failed')) {
    const span = tools.get(event.toolCallId);
    if (!span) return;
    if (event.status === 'failed') {
      span.setAttribute('error.type', event.cancelled ? 'cancelled' : 'tool_failed');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    tools.delete(event.toolCallId);
  } else if (event.type === 'usage') {
    turn.setAttributes({ 'gen_ai.usage.input_tokens': event.inputTokens, 'gen_ai.usage.output_tokens': event.outputTokens });
  } else if (event.type === 'turn-end') {
    turn.setAttribute('gen_ai.response.finish_reasons', [event.stopReason]);
  } else if (event.type === 'error') {
    turn.setAttribute('error.type', event.error.code);
    turn.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
  }
}
