/**
 * The names of the tools the CLI's agent can offer besides MCP ones: the built-in file, search,
 * shell and web tools, the core's own (`exit_plan_mode`, `task`), the context extensions'
 * (skills, plans, memory) and the MCP registry's `search_tools`. MCP tools are `mcp__SERVER__TOOL`,
 * known only once their server connects. Kept as a list (not read off the tools) so a typo in
 * `--allow` is caught before anything heavy loads; test/cli/known-tool-names.test.ts holds it to the tools.
 */
export const KNOWN_TOOL_NAMES: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'glob',
  'grep',
  'bash',
  'bash_output',
  'bash_kill',
  'web_fetch',
  'exit_plan_mode',
  'task',
  'read_skill',
  'plan',
  'memory_search',
  'memory_get',
  'wiki_lint',
  'wiki_update_index',
  'wiki_append_log',
  'wiki_record_relationship',
  'search_tools',
];
