import { PlaitedError } from '../errors/plaited-error.js';

export type ConfigErrorCode =
  /** The file loaded but does not match the schema; `issues` lists every problem. */
  | 'invalid_config'
  /** An explicitly named config file (`--config`) does not exist. */
  | 'config_not_found'
  /** The file could not be read or evaluated (syntax error, a throw at import, bad JSON). */
  | 'config_load_failed'
  /** The config (or a file it imports) loads files chosen at run time, so no trust decision can cover them. */
  | 'config_untrustable'
  /** The user's trust decisions (`trusted-configs.json`) cannot be read: nothing is run, and nothing rewrites them. */
  | 'trust_store_damaged'
  /** `plaited-agent init` could not write the project's config (or its AGENTS.md). */
  | 'config_write_failed';

export interface ConfigIssue {
  /** Dotted path into the config, e.g. `agent.maxSteps` or `mcp.servers.0.url`; '' for the root. */
  path: string;
  message: string;
}

/** A config that cannot be used, naming the file and everything wrong with it. */
export class ConfigError extends PlaitedError<ConfigErrorCode> {
  override readonly name = 'ConfigError';
  /** The config file, when there is one. */
  readonly file: string | null;
  readonly issues: ConfigIssue[];

  constructor(
    code: ConfigErrorCode,
    message: string,
    context: { file: string | null; issues?: ConfigIssue[]; cause?: unknown },
  ) {
    super(code, message, context.cause === undefined ? {} : { cause: context.cause });
    this.file = context.file;
    this.issues = context.issues ?? [];
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is ConfigError {
    return error instanceof Error && error.name === 'ConfigError' && Array.isArray((error as ConfigError).issues);
  }
}
