import { validateConfig } from './load-config.js';
import type { PlaitedConfig, PlaitedConfigInput } from './schema.js';

/**
 * What `defineConfig` returns (or an already parsed config) → the config with every
 * default filled in. Parsing is idempotent, so the public factories call it on whatever
 * they are given. Throws a `ConfigError` listing every problem with its path.
 */
export function parseConfig(input: PlaitedConfigInput | PlaitedConfig = {}): PlaitedConfig {
  return validateConfig(input);
}
