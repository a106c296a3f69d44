/** Global, so that two copies of the package (a plugin's and the host's) agree on it. */
const MARKER = Symbol.for('plaited-agent.error');

export interface PlaitedErrorOptions {
  /** What locates the failure (a file, an id, …), for messages, logs and tests. */
  context?: Record<string, unknown>;
  /** Passed on to `Error` only when the key is present, so `'cause' in error` stays honest. */
  cause?: unknown;
}

/**
 * The base of every error plaited-agent throws: a stable `code` string (the message is for
 * people), an optional `context` and the standard `cause`. Each subclass keeps its own name,
 * codes, fields and `isInstance`; `PlaitedError.isInstance` recognises any of them, across
 * duplicate copies of the package, by a `Symbol.for` marker on the prototype (the AI SDK's
 * `AISDKError` and the MCP SDK's `SdkError` work the same way).
 */
export class PlaitedError<Code extends string = string> extends Error {
  declare readonly code: Code;
  declare readonly context?: Readonly<Record<string, unknown>>;

  constructor(code: Code, message: string, options: PlaitedErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    // Plain assignments (no class fields): the subclasses decide their own property order.
    (this as { code: Code }).code = code;
    if (options.context !== undefined) (this as { context?: Readonly<Record<string, unknown>> }).context = options.context;
  }

  /** Any plaited-agent error, from this copy of the package or another (unlike `instanceof`). */
  static isInstance(value: unknown): value is PlaitedError {
    return typeof value === 'object' && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
  }
}

Object.defineProperty(PlaitedError.prototype, MARKER, { value: true });
Object.defineProperty(PlaitedError.prototype, 'name', { value: 'PlaitedError', writable: true, configurable: true });
