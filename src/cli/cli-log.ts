import type { LogLevel } from './parse-cli-args.js';
import { redactSecrets, type SecretRedactor } from '../tools/redact-secrets.js';
import { rotatingLogFile } from './rotating-log-file.js';
import { LOG_ORDER, type Log } from './stderr-log.js';

export interface CliLog extends Log {
  /** Redacts these values too from now on (the config's keys and tokens, once loaded). */
  redact: SecretRedactor['add'];
  /**
   * Why the process will not go on (a config error, a taken port, a refused store), whatever the
   * level: `plaited-agent: …` on stderr, as before, and an `error` record in the log file, so a
   * service that would not start says why where its operator reads.
   */
  fatal(message: string): void;
}

/**
 * The CLI's log: human lines on stderr and, with `file`, the same records as JSON lines
 * (`time`, `level`, `msg`, plus the record's fields) in a size-bounded, rotated file. Both at
 * `level`; secrets are redacted from every message and string field before it is written.
 */
export function cliLog(options: { level: LogLevel; file?: string; maxBytes?: number }): CliLog {
  const redact = redactSecrets();
  const file = options.file ? rotatingLogFile(options.file, { maxBytes: options.maxBytes }) : undefined;
  const log: Log = (level, message, fields) => {
    if (LOG_ORDER[level] > LOG_ORDER[options.level]) return;
    const text = redact(message);
    process.stderr.write(`[plaited-agent] ${level}: ${text}\n`);
    if (!file) return;
    const record: Record<string, unknown> = { time: new Date().toISOString(), level, msg: text };
    for (const [key, value] of Object.entries(fields ?? {})) record[key] = typeof value === 'string' ? redact(value) : value;
    file(JSON.stringify(record));
  };
  const fatal = (message: string) => {
    // stderr as it always was (these messages hide passwords themselves); the file, as every record, redacted.
    process.stderr.write(`plaited-agent: ${message}\n`);
    file?.(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: redact(message), event: 'fatal' }));
  };
  return Object.assign(log, { redact: redact.add, fatal });
}
