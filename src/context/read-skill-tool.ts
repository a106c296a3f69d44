import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../contracts/tool.js';
import { errorResult, textResult } from '../tools/tool-result.js';
import { ContextError } from './context-error.js';
import type { SkillCatalog } from './skill-catalog.js';

const parameters = z.object({
  name: z.string().min(1).describe('The skill name, as listed in <available_skills>.'),
  path: z
    .string()
    .optional()
    .describe('A file inside the skill folder, relative to it (e.g. references/api.md). Omit to read SKILL.md.'),
});

/** `read_skill`: loads a skill's instructions or one of its files, only from the loaded catalog. */
export function createReadSkillTool(catalog: SkillCatalog): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: 'read_skill',
    description:
      'Load the full instructions of a skill from <available_skills> (or one of its reference files) before doing a task it covers.',
    parameters,
    risk: 'read',
    source: 'skill',
    kind: 'read',
    title: (args) => (args.path ? `Read skill ${args.name}: ${args.path}` : `Read skill ${args.name}`),
    locations: (args) => {
      const skill = catalog.get(args.name);
      return skill ? [{ path: args.path ? `${skill.dir}/${args.path}` : skill.location }] : [];
    },
    async execute(args) {
      try {
        const result = await catalog.read(args.name, args.path);
        return textResult(result.text, { locations: [{ path: result.path ? `${result.skill.dir}/${result.path}` : result.skill.location }] });
      } catch (error) {
        if (ContextError.isInstance(error)) return errorResult(error.message);
        return errorResult(`read_skill failed: ${(error as Error).message}`);
      }
    },
  });
}
