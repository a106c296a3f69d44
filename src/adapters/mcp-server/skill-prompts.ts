import type { PlaitedConfig } from '../../config/schema.js';

/** A skill as an MCP prompt: its name, description and SKILL.md body. */
export interface SkillPrompt {
  name: string;
  description: string;
  body: string;
}

/**
 * The skills of `cwd` per the config (roots, allow, deny), for the prompts list.
 * A skills folder that cannot be read yields no prompts; it never stops the server.
 */
export async function loadSkillPrompts(settings: PlaitedConfig['skills'], cwd: string): Promise<SkillPrompt[]> {
  if (!settings.enabled) return [];
  try {
    const { loadSkills } = await import('../../context/skills.js');
    const { skills } = await loadSkills({
      roots: settings.roots,
      cwd,
      maxFileBytes: settings.maxFileBytes,
      allow: settings.allow,
      deny: settings.deny,
    });
    return skills.map((skill) => ({ name: skill.name, description: skill.description, body: skill.body }));
  } catch {
    return [];
  }
}
