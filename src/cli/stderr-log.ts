import type { LogLevel } from './parse-cli-args.js';
import { terminalSafe } from '../agent/terminal-safe.js';

export const LOG_ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** A log line: a message for humans, and (for the JSON log file) the same facts as fields. */
export type Log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/**
 * Logs for humans on stderr: stdout belongs to the protocol. A message may quote a server's or the
 * model's words; its control characters are escaped (stderr is often the terminal).
 */
export function stderrLog(threshold: LogLevel): Log {
  return (level, message) => {
    if (LOG_ORDER[level] > LOG_ORDER[threshold]) return;
    process.stderr.write(`[plaited-agent] ${level}: ${terminalSafe(message)}\n`);
  };
}
