import { resolve } from 'node:path';
import { errorMessage } from '../errors/error-message.js';
import { PlaitedError } from '../errors/plaited-error.js';

const BUILT_IN = new Set(['acp', 'mcp', 'a2a', 'sandbox']);

/** A built-in adapter by its name, a custom one by its file. */
const shown = (adapter: string) => (BUILT_IN.has(adapter) ? adapter : resolve(adapter));

/**
 * An adapter whose `wrap` failed: the message names it (a custom one by its file) and, when what
 * failed is the address it listens on, who holds it and the flag that picks another.
 */
export class AdapterStartError extends PlaitedError<'adapter_start_failed'> {
  override readonly name = 'AdapterStartError';

  /**
   * `portFlag: false`: `--port` is another face's in this run (A2A beside `--transport http`), so the fix names the config key alone.
   * `heldHere`: the ports this process's faces already listen on (a collision with one is ours, not another server's).
   */
  constructor(adapter: string, cause: unknown, portFlag = true, heldHere: readonly number[] = []) {
    super('adapter_start_failed', `adapter ${shown(adapter)}: ${reason(adapter, cause, portFlag, heldHere)}`, { cause });
  }
}

/**
 * What to throw when `adapter`'s wrap failed with `error`: a face's own typed error as it is,
 * unless what failed is its address (that one gets the fix); anything else named by its adapter.
 */
export function adapterStartFailure(adapter: string, error: unknown, portFlag = true, heldHere: readonly number[] = []): PlaitedError {
  const listen = PlaitedError.isInstance(error) ? error.cause : error;
  if (isListenError(listen)) return new AdapterStartError(adapter, listen, portFlag, heldHere);
  return PlaitedError.isInstance(error) ? error : new AdapterStartError(adapter, error);
}

function isListenError(error: unknown): boolean {
  const { code, port, address } = (error ?? {}) as { code?: unknown; port?: unknown; address?: unknown };
  return ((code === 'EADDRINUSE' || code === 'EACCES') && port !== undefined) || (code === 'EADDRNOTAVAIL' && address !== undefined);
}

function reason(adapter: string, cause: unknown, portFlag: boolean, heldHere: readonly number[]): string {
  const { code, address, port } = (cause ?? {}) as { code?: unknown; address?: unknown; port?: unknown };
  const where = `${String(address)}:${String(port)}`;
  if (code === 'EADDRINUSE' && heldHere.includes(Number(port))) {
    return `${where} is already taken by another face of this process (--port goes to every face of --transport http): leave --port out and give each face its own port in the config (adapters.acp.port, adapters.mcp.port)`;
  }
  const other = !portFlag ? `adapters.${adapter}.port in the config (--port is the other face's here)` : BUILT_IN.has(adapter) ? `--port N (or adapters.${adapter}.port)` : '--port N';
  if (code === 'EADDRINUSE') return `${where} is already in use (another plaited-agent, or another server, listens there): stop it, or pick another port with ${other}`;
  if (code === 'EACCES' && port !== undefined) return `not allowed to listen on ${where} (ports below 1024 need privileges): pick another port with ${other}`;
  if (code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${String(address)}: it is not an address of this machine; pick one it has with --host (or adapters.${BUILT_IN.has(adapter) ? adapter : '<name>'}.host), or 0.0.0.0 for all`;
  }
  return `did not start: ${errorMessage(cause)}`;
}

/** A serving adapter whose `closed` rejected: named like a failed start, without the stack of an operator's mistake. */
export function adapterStopMessage(adapter: string, error: unknown): string {
  return `adapter ${shown(adapter)} stopped: ${PlaitedError.isInstance(error) ? error.message : errorMessage(error)}`;
}

/** A `wrap` that resolved to neither an agent nor `{ closed: Promise }`: named, with what it must return. */
export function adapterResultError(adapter: string, result: unknown): AdapterStartError {
  const got = result === null || typeof result !== 'object' ? String(result) : 'closed' in result ? 'an object whose closed is not a promise' : 'an object without closed';
  return new AdapterStartError(
    adapter,
    new Error(`wrap resolved to ${got}; resolve to { closed: Promise } (a face it serves; the CLI exits when it settles) or to an agent (wrapped for the next adapter)`),
  );
}
