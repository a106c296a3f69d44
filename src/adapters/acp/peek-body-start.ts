import type { IncomingMessage } from 'node:http';

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The first non-whitespace byte of a request body, read without consuming it: what was read
 * is pushed back (`unshift`) before the promise settles, so the body reads whole afterwards.
 * `undefined` for a body that is empty or only whitespace (then it has been consumed).
 */
export function peekBodyStart(req: IncomingMessage): Promise<number | undefined> {
  return new Promise((resolve) => {
    const held: Buffer[] = [];
    const settle = (byte: number | undefined) => {
      req.off('readable', onReadable);
      req.off('end', onEnd);
      req.off('error', onEnd);
      if (byte !== undefined) for (const chunk of held.reverse()) req.unshift(chunk);
      resolve(byte);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = req.read() as Buffer | null) !== null) {
        held.push(chunk);
        const start = chunk.findIndex((byte) => !WHITESPACE.has(byte));
        if (start >= 0) return settle(chunk[start]);
      }
    };
    const onEnd = () => settle(undefined);
    req.on('readable', onReadable);
    req.once('end', onEnd);
    req.once('error', onEnd);
  });
}
