import type { PlaitedConfigInput } from './schema.js';

/** Identity: gives `.plaited/config.ts` type checking and completion. Validation happens at load. */
export function defineConfig(config: PlaitedConfigInput): PlaitedConfigInput {
  return config;
}
