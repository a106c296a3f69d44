/**
 * Warnings for OpenTelemetry exporters named in the environment that plaited-agent does not
 * offer (only `otlp`, over OTLP/HTTP JSON): `OTEL_TRACES_EXPORTER=zipkin` turns the traces off
 * rather than sending them anywhere, and an operator must hear so. Cheap: no SDK is loaded.
 */
export function unsupportedOtelExporters(env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  for (const name of ['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER']) {
    const unsupported = (env[name] ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '' && entry !== 'otlp' && entry !== 'none');
    if (unsupported.length > 0) {
      warnings.push(`${name} names ${unsupported.join(', ')}, which plaited-agent does not export to (only otlp, over OTLP/HTTP JSON): send to an OpenTelemetry collector that forwards there`);
    }
  }
  return warnings;
}
