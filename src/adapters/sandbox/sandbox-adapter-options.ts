import type { PlaitedConfig } from '../../config/schema.js';

/**
 * What the sandbox adapter's `wrap` takes. In a file of its own so that the public
 * types do not reach `@anthropic-ai/sandbox-runtime`'s declarations (they need
 * `@types/node-forge`, which a library user does not have).
 */
export interface SandboxAdapterOptions {
  config: PlaitedConfig;
  /** Where warnings go; stderr by default. */
  warn?: (message: string) => void;
}
