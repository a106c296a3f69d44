import type { PlaitedConfig } from '../config/schema.js';

/** The config sections the context layer reads, after defaults. */
export type SkillsConfig = PlaitedConfig['skills'];
export type RulesConfig = PlaitedConfig['rules'];
export type MemoryConfig = PlaitedConfig['memory'];
export type CacheConfig = PlaitedConfig['cache'];
