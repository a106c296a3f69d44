import { terminalSafe } from '../agent/terminal-safe.js';

/**
 * `stream` as a command's output to a person: on a terminal, what is written as text goes through
 * `terminalSafe`; to a pipe or a file the stream is returned as it is (bytes as stored).
 */
export function terminalSafeStream<T extends NodeJS.WritableStream>(stream: T): T {
  if (!(stream as { isTTY?: boolean }).isTTY) return stream;
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean).call(target, typeof chunk === 'string' ? terminalSafe(chunk) : chunk, ...rest);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** stdout and stderr of a command a person reads (`trust`, `sessions`, `mcp`…), each through `terminalSafeStream`. */
export function terminalStreams(): { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream } {
  return { stdout: terminalSafeStream(process.stdout), stderr: terminalSafeStream(process.stderr) };
}
