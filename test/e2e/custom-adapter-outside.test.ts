import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { CLI } from '../helpers/acp-cli.js';
import { requireBuiltCli } from '../adapters/mcp-server/mcp-test-kit.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

// A custom adapter in a folder of its own (no node_modules, no package.json) imports values and
// types from 'plaited-agent', and its `adapters.<name>` config section reaches its `wrap`.
const ADAPTER = `import { acpAdapter, PlaitedError, type AgentAdapter, type CustomAdapterOptions } from 'plaited-agent';

const outside: AgentAdapter<CustomAdapterOptions<{ greeting: string; times: number }>, { closed: Promise<void> }> = {
  name: 'outside',
  async wrap(agent, options) {
    const session = await agent.sessions.create({ cwd: process.cwd() });
    const error = new PlaitedError('demo', 'a demo error');
    process.stderr.write(
      'outside adapter: ' +
        JSON.stringify({ settings: options.settings, acp: acpAdapter.name, plaitedError: PlaitedError.isInstance(error), session: session.sessionId.length > 0, version: typeof options.version }) +
        '\\n',
    );
    return { closed: Promise.resolve() };
  },
};
export default outside;
`;

function outsideAdapter(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-outside-adapter-'));
  const file = join(dir, 'outside-adapter.ts');
  writeFileSync(file, ADAPTER);
  return file;
}

function project(config: object | undefined): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-outside-project-'));
  mkdirSync(join(cwd, '.plaited'));
  if (config) writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(config));
  trustProjectConfig(cwd);
  return cwd;
}

function runWith(cwd: string, adapter: string) {
  const run = spawnSync(process.execPath, [CLI, '--adapter', adapter, '--model', 'openai-compatible:none', '--base-url', 'http://127.0.0.1:9'], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    input: '',
  });
  const line = /outside adapter: (.*)/.exec(run.stderr)?.[1];
  return { run, report: line ? (JSON.parse(line) as Record<string, unknown>) : undefined };
}

describe('a custom adapter outside the project', () => {
  it("imports from 'plaited-agent' with no node_modules beside it, and gets its adapters.<name> section as settings", () => {
    requireBuiltCli();
    const adapter = outsideAdapter();
    expect(existsSync(join(adapter, '..', 'node_modules'))).toBe(false);
    const cwd = project({ adapters: { outside: { greeting: 'hello from config', times: 2 } } });
    const { run, report } = runWith(cwd, adapter);
    expect(run.status, run.stderr).toBe(0);
    expect(report).toEqual({ settings: { greeting: 'hello from config', times: 2 }, acp: 'acp', plaitedError: true, session: true, version: 'string' });
    expect(run.stdout).toBe('');
  });

  it('without a section its settings are {}', () => {
    requireBuiltCli();
    const { run, report } = runWith(project(undefined), outsideAdapter());
    expect(run.status, run.stderr).toBe(0);
    expect(report?.settings).toEqual({});
  });

  it('the config accepts any adapters.<name> object and rejects a section that is not one, naming its path', () => {
    expect(configSchema.parse({ adapters: { outside: { greeting: 'x' } } }).adapters.outside).toEqual({ greeting: 'x' });
    const parsed = configSchema.safeParse({ adapters: { outside: 3 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['adapters', 'outside']);
  });
});
