/** At most one export-failure warning per this many ms (a collector that is down fails every batch). */
const REPEAT_MS = 5 * 60_000;

/**
 * What an operator must hear about telemetry that goes nowhere (an exporter not offered is said
 * by run-cli, with telemetry on or off: `unsupported-otel-exporters.ts`). The OTLP endpoints must be
 * http(s) URLs: the exporter drops a scheme-less one (`collector:4318`) without a word. And the
 * SDK reports a failed export (a collector that is down or refuses) only through its `diag`
 * logger, silent by default: its errors become a warning, the first at once, then at most one
 * per five minutes with how many were left unsaid.
 */
export async function telemetryDiagnostics(warn: (message: string) => void, env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<void> {
  // Loaded here, as the rest of the SDK: only start-telemetry.ts imports @opentelemetry/* statically.
  const { diag, DiagLogLevel } = await import('@opentelemetry/api');
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT']) {
    const value = env[name];
    if (value && !/^https?:\/\/[^/\s]/i.test(value)) {
      warn(`${name}=${value} is not an http(s) URL, so nothing is sent there: give the collector's OTLP/HTTP address with its scheme (http://collector:4318)`);
    }
  }
  let last = -Infinity;
  let unsaid = 0;
  const error = (message: string, ...args: unknown[]) => {
    if (now() - last < REPEAT_MS) return void unsaid++;
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : '')).filter(Boolean).join(' ');
    warn(`telemetry: ${message}${detail ? ` ${detail}` : ''}${unsaid > 0 ? ` (and ${unsaid} more since the last warning)` : ''}; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector answers`);
    last = now();
    unsaid = 0;
  };
  const quiet = () => undefined;
  diag.setLogger({ error, warn: quiet, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true });
}
