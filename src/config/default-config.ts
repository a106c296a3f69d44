import { parseConfig } from './parse-config.js';
import type { PlaitedConfig } from './schema.js';

let parsed: PlaitedConfig | undefined;

/** The config with every default filled in (no file, no input), parsed once. Treat it as read-only. */
export function defaultConfig(): PlaitedConfig {
  return (parsed ??= parseConfig(undefined));
}
