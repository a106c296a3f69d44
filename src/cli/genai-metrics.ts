import type { Resource } from '@opentelemetry/resources';
import type { ModelStepRecord } from '../model/log-model-calls.js';

export interface GenAiMetrics {
  /** One model call: its token usage and duration, as the GenAI client metrics. */
  record(record: ModelStepRecord): void;
  shutdown(): Promise<void>;
}

/**
 * The GenAI client metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`)
 * over OTLP/HTTP JSON, every `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60 s); `undefined` when
 * `OTEL_METRICS_EXPORTER` names no `otlp`. Loaded with the traces, only when telemetry is on.
 */
export async function startGenAiMetrics(resource: Resource, version: string, env: NodeJS.ProcessEnv = process.env): Promise<GenAiMetrics | undefined> {
  const exporters = env.OTEL_METRICS_EXPORTER?.split(',').map((name) => name.trim().toLowerCase());
  if (exporters && !exporters.includes('otlp')) return undefined;
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000;
  const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: interval, exportTimeoutMillis: Math.min(30_000, interval) });
  const provider = new MeterProvider({ resource, readers: [reader] });
  const meter = provider.getMeter('plaited-agent', version);
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', description: 'Tokens used per model call, by type' });
  const duration = meter.createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'Duration of a model call' });
  return {
    record(record) {
      const attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': record.provider.split('.')[0] ?? record.provider,
        'gen_ai.request.model': record.model,
      };
      duration.record(record.latencyMs / 1000, record.error === undefined ? attributes : { ...attributes, 'error.type': 'model_call_failed' });
      if (record.inputTokens !== undefined) tokens.record(record.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      if (record.outputTokens !== undefined) tokens.record(record.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    },
    shutdown: () => provider.shutdown(),
  };
}
