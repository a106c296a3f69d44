/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint is set (or
 * `OTEL_TRACES_EXPORTER=otlp`), and neither `OTEL_SDK_DISABLED=true` nor another exporter
 * (`none`) is chosen. Cheap on purpose: the SDK loads only when this is true.
 */
export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase());
  if (exporters && !exporters.includes('otlp')) return false;
  return Boolean(exporters?.includes('otlp') || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
