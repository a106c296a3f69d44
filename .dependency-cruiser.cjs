/**
 * The layers of ../shared/DESIGN.md (see docs/DESIGN-NOTES.md "Layers"), checked by
 * test/architecture/layers.test.ts in `npm test`. Type-only imports count too: a type that
 * points upward is an upward dependency all the same.
 *
 *   bin, src/cli, src/index.ts, src/default-agent.ts   (CLI: composition root)
 *   src/adapters                                       (protocol faces)
 *   src/mcp, src/context                               (agent extensions, through the agent contract)
 *   src/agent                                          (the core)
 *   src/model, src/tools, src/config, src/retrieval, src/storage
 *   src/contracts                                      (events, hooks, extensions, Tool, Runtime: the bottom every layer may import)
 */
const cli = '^(bin/|src/cli/|src/index\\.ts$|src/default-agent\\.ts$)';
const layer = (...names) => `^src/(${names.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'only-cli-imports-cli',
      comment: 'bin/ and src/cli/ are the composition root: nothing below them imports them.',
      severity: 'error',
      from: { pathNot: cli },
      to: { path: '^(bin/|src/cli/)' },
    },
    {
      name: 'nothing-imports-index',
      comment: 'src/index.ts and the default-agent preset belong to the composition root: the layers below import their modules directly.',
      severity: 'error',
      from: { path: '^src/', pathNot: cli },
      to: { path: '^src/(index|default-agent)\\.ts$' },
    },
    {
      name: 'agent-knows-no-protocol',
      comment: 'The core knows no protocol and knows its extensions only through the contract.',
      severity: 'error',
      from: { path: layer('agent') },
      to: { path: layer('adapters', 'mcp', 'context') },
    },
    {
      name: 'extensions-below-adapters',
      comment: 'MCP and context implement AgentExtension; they import the agent contract, never a protocol face.',
      severity: 'error',
      from: { path: layer('mcp', 'context') },
      to: { path: layer('adapters') },
    },
    {
      name: 'bottom-layers-import-no-core',
      comment: 'Model, tools, config: below the core (events and hooks come from src/contracts).',
      severity: 'error',
      from: { path: layer('model', 'tools', 'config') },
      to: { path: layer('agent', 'adapters', 'mcp', 'context') },
    },
    {
      name: 'retrieval-serves-every-module',
      comment: 'The index serves every discovery module and knows none of them.',
      severity: 'error',
      from: { path: layer('retrieval') },
      to: { path: layer('agent', 'adapters', 'mcp', 'context', 'tools', 'config') },
    },
    {
      name: 'storage-owns-its-records',
      comment: 'Storage is below the core: it owns its record types.',
      severity: 'error',
      from: { path: layer('storage') },
      to: { path: layer('agent', 'adapters', 'mcp', 'context', 'model', 'tools', 'config', 'retrieval') },
    },
    {
      name: 'contracts-at-the-bottom',
      comment: 'The contracts (events, hooks, extensions, Tool, Runtime) import nothing above them.',
      severity: 'error',
      from: { path: layer('contracts') },
      to: { path: layer('agent', 'adapters', 'mcp', 'context', 'model', 'tools', 'config', 'retrieval', 'storage', 'errors') },
    },
    {
      name: 'acp-no-cycle',
      comment: 'ACP: one handler set with v1 and v2 translators over it; the router and the version switch do not import each other.',
      severity: 'error',
      from: { path: '^src/adapters/acp/' },
      to: { path: '^src/adapters/acp/', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
