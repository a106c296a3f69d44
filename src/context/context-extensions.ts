import { join } from 'node:path';
import type { AgentExtension } from '../agent/agent-extension.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import { createMemoryExtension } from './memory-extension.js';
import { createPlanExtension } from './plan-extension.js';
import { createRulesExtension } from './rules-extension.js';
import { createSemanticCache, type SemanticCache } from './semantic-cache.js';
import { createSkillsExtension } from './skills-extension.js';
import { userConfigDir } from '../config/user-config-dir.js';

export interface ContextExtensionsOptions {
  config: PlaitedConfig;
  /** The one hybrid index; skills, rule links and memory pages live in their own namespaces. */
  index: SearchIndex;
  /** Needed only for the semantic cache (see `createContextCache`). */
  embedder?: EmbeddingModel;
  /** Where a file that could not be read is told (skills skipped, a plan file set aside): the CLI's log. */
  warn?: (message: string) => void;
}

/**
 * Skills, rules, memory and plans as agent extensions, each switched by its config
 * section (memory is off by default; plans are always on). The semantic cache is not an
 * extension — it sits in front of the model call — see `createContextCache`.
 */
export function createContextExtensions(options: ContextExtensionsOptions): AgentExtension[] {
  const { config, index, warn } = options;
  const extensions: AgentExtension[] = [];
  if (config.rules.enabled) extensions.push(createRulesExtension({ config: config.rules, index, allowedRoots: config.agent.allowedRoots, ...(warn ? { warn } : {}) }));
  // The user's own skills serve every project; read after the project's roots, so a project's skill of the same name wins.
  const skills = { ...config.skills, roots: [...config.skills.roots, join(userConfigDir(), 'skills')] };
  if (config.skills.enabled) extensions.push(createSkillsExtension({ config: skills, index, ...(warn ? { warn } : {}) }));
  if (config.memory.enabled) extensions.push(createMemoryExtension({ config: config.memory, index }));
  extensions.push(createPlanExtension(warn ? { warn } : {}));
  return extensions;
}

/** The semantic cache as configured, or undefined when it is off or there is no embedder. */
export function createContextCache<A = string>(options: {
  config: PlaitedConfig;
  embedder?: EmbeddingModel;
  initialEntries?: Parameters<typeof createSemanticCache<A>>[0]['initialEntries'];
  onPersist?: Parameters<typeof createSemanticCache<A>>[0]['onPersist'];
}): SemanticCache<A> | undefined {
  if (!options.config.cache.enabled || !options.embedder) return undefined;
  return createSemanticCache<A>({
    embedder: options.embedder,
    threshold: options.config.cache.threshold,
    ttlMs: options.config.cache.ttlMs,
    initialEntries: options.initialEntries,
    onPersist: options.onPersist,
  });
}
