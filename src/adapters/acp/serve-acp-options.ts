import type { AcpAgentSettings } from './acp-agent-settings.js';

/** What one ACP connection (v1 or the v2 draft, any transport) is served with. */
export interface ServeAcpOptions {
  name?: string;
  version?: string;
  /** Where protocol-level diagnostics go (stderr in the CLI). Never stdout. */
  log?: (message: string) => void;
  /** Told about refused messages (too large, too deep, malformed); stderr at warn level in the CLI. */
  warn?: (message: string) => void;
  /** Limits on one incoming message; default `adapters.acp.maxMessageBytes`/`maxJsonDepth` of the agent's config. */
  maxMessageBytes?: number;
  maxJsonDepth?: number;
  /** Who is calling (from the network auth); stdio is the local user. Other principals' sessions do not exist for it. */
  principal?: string;
  /**
   * What ACP tells clients of the model(s) and the layer client commands run under; default: the
   * default config's. Named for its face: a custom adapter that hands its own options on (whose
   * `settings` are its config section) does not clash.
   */
  acpSettings?: AcpAgentSettings;
}
