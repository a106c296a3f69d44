import { describe, expect, it } from 'vitest';
import { KNOWN_TOOL_NAMES } from '../../src/cli/known-tool-names.js';
import { unknownToolRule } from '../../src/cli/unknown-tool-rule.js';
import { createBuiltinTools } from '../../src/tools/builtin-tools.js';
import { createWebFetchTool } from '../../src/tools/web-fetch-tool.js';
import { createExitPlanModeTool } from '../../src/agent/exit-plan-mode-tool.js';
import { createTaskTool } from '../../src/agent/task-tool.js';
import { createReadSkillTool } from '../../src/context/read-skill-tool.js';
import { createPlanTool } from '../../src/context/plan-tool.js';
import { createMemoryTools } from '../../src/context/memory-tools.js';
import { createSearchToolsTool } from '../../src/mcp/search-tools-tool.js';

// The list `--allow` is checked against, held to the tools themselves: a new tool not listed fails here.
describe('the tool names the CLI knows', () => {
  it('are the names of the tools its agent can offer besides MCP ones', () => {
    const never = () => Promise.reject(new Error('not called'));
    const names = [
      ...createBuiltinTools(),
      createWebFetchTool(),
      createExitPlanModeTool({ setMode: never }),
      createTaskTool({ agents: { helper: { description: 'helps' } }, maxParallel: 1, run: never }),
      createReadSkillTool({} as Parameters<typeof createReadSkillTool>[0]),
      createPlanTool({} as Parameters<typeof createPlanTool>[0]),
      ...createMemoryTools({} as Parameters<typeof createMemoryTools>[0]),
      createSearchToolsTool({ registry: {} as Parameters<typeof createSearchToolsTool>[0]['registry'] }),
    ].map((tool) => tool.name);
    expect([...KNOWN_TOOL_NAMES].sort()).toEqual(names.sort());
  });

  it('a rule naming none is a typo of one, or lists them; MCP tools and globs pass', () => {
    expect(unknownToolRule('bash(npm test:*)')).toBeUndefined();
    expect(unknownToolRule('mcp__github__create_issue')).toBeUndefined();
    expect(unknownToolRule('mcp__{fs,git}__read_*')).toBeUndefined();
    expect(unknownToolRule('*')).toBeUndefined();
    expect(unknownToolRule('bsh')).toBe("no tool is named 'bsh': did you mean bash?");
    expect(unknownToolRule('Write_File(src/**)')).toBe("no tool is named 'Write_File': did you mean write_file?");
    expect(unknownToolRule('shout')).toContain("no tool is named 'shout' (the tools: read_file, ");
    expect(unknownToolRule('shout')).toContain('mcp__SERVER__TOOL');
  });
});
