import type { LogLevel } from './parse-cli-args.js';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export type Log = (level: LogLevel, message: string) => void;

/** Logs for humans on stderr: stdout belongs to the protocol. */
export function stderrLog(threshold: LogLevel): Log {
  return (level, message) => {
    if (ORDER[level] > ORDER[threshold]) return;
    process.stderr.write(`[plaited-agent] ${level}: ${message}\n`);
  };
}
