import type { PlaitedConfig } from '../config/schema.js';
import type { NetworkAuth } from './http/network-auth.js';

/**
 * What the CLI hands a custom adapter's `wrap(agent, options)` (`--adapter ./my-adapter.ts`).
 * Type a custom adapter with it: `AgentAdapter<CustomAdapterOptions<{ port: number }>>`.
 */
export interface CustomAdapterOptions<TSettings extends object = Record<string, unknown>> {
  /** This adapter's own section of the config, `adapters.<name>` (`name` as the adapter's default export says); `{}` when the config has none. */
  settings: Partial<TSettings>;
  /** The package version (for a server's handshake or headers). */
  version: string;
  /** The whole resolved config (read only). */
  config: PlaitedConfig;
  /** `--transport`, `--host` and `--port` as given on the command line (undefined when not given). */
  transport?: 'stdio' | 'http';
  host?: string;
  port?: number;
  /**
   * The bearer-token check every network face shares (`server.auth`, `--auth-token-file`,
   * `PLAITED_AUTH_TOKEN`): call it with the host you bind to before listening; the token is
   * generated and announced on the first call.
   */
  networkAuth: (host: string) => NetworkAuth;
  /** Logs to stderr at the configured level (stdout belongs to the protocol). */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}
