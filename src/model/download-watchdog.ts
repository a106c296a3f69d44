import { PlaitedError } from '../errors/plaited-error.js';

/** Defaults for remote model files; `PLAITED_DOWNLOAD_CONNECT_TIMEOUT_MS` / `…_READ_TIMEOUT_MS` override them. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_READ_TIMEOUT_MS = 60_000;

export interface DownloadTimeouts {
  /** No answer (no first byte) this long after the start: give up. */
  connectTimeoutMs?: number;
  /** No new bytes this long during the download: give up. */
  readTimeoutMs?: number;
}

/** A remote model file that stalled; `LocalModelError('model_download_failed')` carries it as its cause. */
export class DownloadTimeoutError extends PlaitedError<'download_timeout'> {
  override readonly name = 'DownloadTimeoutError';
  constructor(
    readonly phase: 'connect' | 'read',
    readonly timeoutMs: number,
  ) {
    super('download_timeout', phase === 'connect' ? `no answer within ${timeoutMs} ms (connect timeout)` : `no data for ${timeoutMs} ms (read timeout)`);
  }

  static override isInstance(error: unknown): error is DownloadTimeoutError {
    return PlaitedError.isInstance(error) && error.name === 'DownloadTimeoutError';
  }
}

/**
 * Runs a download and rejects with a `DownloadTimeoutError` when it stalls: node-llama-cpp's
 * downloader has no timeouts of its own and does not abort its first request on its signal,
 * so a host that never answers would hang for many minutes. The download gets `signal` (aborted
 * on timeout, so it stops when it can) and `onBytes`, which it calls whenever bytes arrive.
 */
export async function withDownloadWatchdog<T>(
  download: (control: { signal: AbortSignal; onBytes: () => void }) => Promise<T>,
  options: DownloadTimeouts & { signal?: AbortSignal } = {},
): Promise<T> {
  const connectMs = options.connectTimeoutMs ?? envMs('PLAITED_DOWNLOAD_CONNECT_TIMEOUT_MS') ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const readMs = options.readTimeoutMs ?? envMs('PLAITED_DOWNLOAD_READ_TIMEOUT_MS') ?? DEFAULT_READ_TIMEOUT_MS;
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let fail: (error: Error) => void = () => undefined;
  const timedOut = new Promise<never>((_, reject) => (fail = reject));
  const arm = (phase: 'connect' | 'read', ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const error = new DownloadTimeoutError(phase, ms);
      controller.abort(error);
      fail(error);
    }, ms);
  };
  arm('connect', connectMs);
  try {
    return await Promise.race([download({ signal: controller.signal, onBytes: () => arm('read', readMs) }), timedOut]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

function envMs(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
