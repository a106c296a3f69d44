import { closestName } from '../config/closest-name.js';
import { parsePermissionRule } from '../agent/permission-rule.js';
import { KNOWN_TOOL_NAMES } from './known-tool-names.js';

/**
 * What is wrong with the tool a permission rule names, if anything: `undefined` for a known tool,
 * an MCP tool (`mcp__SERVER__TOOL`, whose server connects later) or a glob (`mcp__fs__*`, `*`);
 * else the problem, with the tool it is a typo of (`bsh` → `bash`) or the names there are.
 */
export function unknownToolRule(rule: string): string | undefined {
  const { tool } = parsePermissionRule(rule);
  if (KNOWN_TOOL_NAMES.includes(tool) || tool.startsWith('mcp__') || /[*?[{]/.test(tool)) return undefined;
  const meant = closestName(tool, KNOWN_TOOL_NAMES);
  if (meant !== undefined) return `no tool is named '${tool}': did you mean ${meant}?`;
  return `no tool is named '${tool}' (the tools: ${KNOWN_TOOL_NAMES.join(', ')}; an MCP server's are mcp__SERVER__TOOL)`;
}

/**
 * The config's `tools.allow` / `tools.deny` rules that name no tool, as warnings: the config is
 * also read by library users, whose own tools (createAgent's `tools`) the CLI does not know.
 */
export function unknownConfigToolRules(tools: { allow: readonly string[]; deny: readonly string[] }): string[] {
  return (['allow', 'deny'] as const).flatMap((list) =>
    tools[list].flatMap((rule) => {
      const unknown = unknownToolRule(rule);
      return unknown === undefined ? [] : [`config tools.${list} "${rule}": ${unknown}; the rule matches nothing`];
    }),
  );
}
