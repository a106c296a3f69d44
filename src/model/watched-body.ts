import { ModelError } from './model-error.js';

export interface BodyWatch {
  /** Called when the body ends, fails or is cancelled (a limiter's slot, a listener to remove). */
  onEnd(): void;
  /** Fails the body when no piece of it arrives for `ms`: `error` is what it fails with, after `onStall`. */
  idle?: { ms: number; error(): ModelError; onStall(): void };
}

/**
 * The same response, its body read through: told when it ends, and, with `idle`, failed when it
 * stalls (as a dropped connection fails: `TypeError('terminated')`, the ModelError its cause).
 */
export function watchedBody(response: Response, watch: BodyWatch): Response {
  if (!response.body) {
    watch.onEnd();
    return response;
  }
  const reader = response.body.getReader();
  const { idle } = watch;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = idle && new Promise<never>((_, fail) => (timer = setTimeout(() => fail(idle.error()), idle.ms)));
      try {
        const { done, value } = await (stalled ? Promise.race([reader.read(), stalled]) : reader.read());
        if (done) {
          watch.onEnd();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        watch.onEnd();
        if (idle && ModelError.isInstance(error)) {
          idle.onStall();
          void reader.cancel(error).catch(() => undefined);
          controller.error(new TypeError('terminated', { cause: error }));
        } else controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      watch.onEnd();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
