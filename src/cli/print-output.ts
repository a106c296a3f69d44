/** Why stdout took no more of a headless answer: its reader went away (`EPIPE`) or the write failed (`ENOSPC`, `EIO`…). */
export interface StdoutFailure {
  code: string;
  message: string;
}

/** stdout as `-p` writes its answer to it: a failed write is caught, never an unhandled 'error' event. */
export interface PrintOutput {
  /** Writes `text`; after a failure, nothing more is written. */
  write(text: string): void;
  /** Resolves once everything written so far reached the stream, or failed to. */
  drained(): Promise<void>;
  failure(): StdoutFailure | undefined;
}

/**
 * Wraps stdout for one headless turn. The first failed write is recorded and `onFailure` is told
 * (it cancels the turn: no one reads the rest of the answer); the stream keeps a listener, so a
 * late 'error' event cannot end the process with a stack trace.
 */
export function printOutput(stream: NodeJS.WritableStream, onFailure: (failure: StdoutFailure) => void): PrintOutput {
  let failed: StdoutFailure | undefined;
  let last: Promise<void> = Promise.resolve();
  const fail = (error: Error & { code?: unknown }) => {
    if (failed) return;
    failed = { code: typeof error.code === 'string' ? error.code : 'EIO', message: error.message };
    onFailure(failed);
  };
  stream.on('error', fail);
  return {
    write(text) {
      if (failed) return;
      last = new Promise((written) => {
        stream.write(text, (error) => {
          if (error) fail(error);
          written();
        });
      });
    },
    drained: () => last,
    failure: () => failed,
  };
}

/** The exit code and the line for a turn whose answer stdout did not take. */
export function stdoutFailureReport(failure: StdoutFailure, turn: { sessionId: string; stopReason: string }): { code: number; line: string } {
  const ended = turn.stopReason === 'cancelled' ? 'the turn was cancelled' : `the turn ended (${turn.stopReason})`;
  const kept = `session ${turn.sessionId} keeps what was said (plaited-agent sessions export ${turn.sessionId})`;
  // A reader that stopped reading (`| head -1`) is what SIGPIPE would have ended: 128 + 13.
  if (failure.code === 'EPIPE') return { code: 141, line: `stdout was closed before the whole answer was written (EPIPE): ${ended}; ${kept}` };
  return { code: 1, line: `cannot write the answer to stdout (${failure.message}): ${ended}; ${kept}; point stdout at somewhere writable` };
}
