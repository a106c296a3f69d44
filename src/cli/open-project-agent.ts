import { loadConfig } from '../config/load-config.js';
import type { PlaitedConfig } from '../config/schema.js';
import { createDefaultAgent, type DefaultAgent } from '../default-agent.js';
import { sessionStoreUrl } from './session-store-url.js';
import type { Log } from './stderr-log.js';

export interface ProjectAgent {
  agent: DefaultAgent;
  config: PlaitedConfig;
  /** The config file that was loaded, if any. */
  path: string | null;
  /** Why the project's config was skipped (not trusted), if it was. */
  untrusted?: string;
  /** Whether it was skipped because the trust decisions themselves cannot be read (the message names the fix). */
  trustStoreDamaged?: boolean;
}

/**
 * The project's config (as the server would load it, with the session store it would use:
 * `store`, else PLAITED_STORE, else `storage.url`) and the preset agent on it, for a one-shot subcommand.
 */
export async function openProjectAgent(options: { cwd: string; configPath?: string; store?: string; log: Log }): Promise<ProjectAgent> {
  const loaded = await loadConfig({ cwd: options.cwd, configPath: options.configPath });
  for (const warning of loaded.warnings ?? []) options.log('warn', warning);
  const url = sessionStoreUrl(loaded.config, options.store);
  const config = url === undefined ? loaded.config : { ...loaded.config, storage: { ...loaded.config.storage, url } };
  const agent = createDefaultAgent({ config, log: options.log, projectDir: options.cwd });
  return { agent, config, path: loaded.path, ...(loaded.untrusted ? { untrusted: loaded.untrusted.message, trustStoreDamaged: loaded.untrusted.reason === 'store_damaged' } : {}) };
}
