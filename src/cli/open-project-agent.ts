import { loadConfig } from '../config/load-config.js';
import type { PlaitedConfig } from '../config/schema.js';
import { createDefaultAgent, type DefaultAgent } from '../default-agent.js';
import type { Log } from './stderr-log.js';

export interface ProjectAgent {
  agent: DefaultAgent;
  config: PlaitedConfig;
  /** The config file that was loaded, if any. */
  path: string | null;
  /** Why the project's config was skipped (not trusted), if it was. */
  untrusted?: string;
}

/** The project's config (as the server would load it) and the preset agent on it, for a one-shot subcommand. */
export async function openProjectAgent(options: { cwd: string; configPath?: string; store?: string; log: Log }): Promise<ProjectAgent> {
  const loaded = await loadConfig({ cwd: options.cwd, configPath: options.configPath });
  // The store the server would use: --store, then PLAITED_STORE, then storage.url (replicas are given the variable).
  const url = options.store || process.env.PLAITED_STORE || loaded.config.storage.url;
  const config = url === undefined ? loaded.config : { ...loaded.config, storage: { ...loaded.config.storage, url } };
  const agent = createDefaultAgent({ config, log: options.log, projectDir: options.cwd });
  return { agent, config, path: loaded.path, ...(loaded.untrusted ? { untrusted: loaded.untrusted.message } : {}) };
}
