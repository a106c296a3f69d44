import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse-config.js';
import { ToolPolicy } from '../../src/agent/tool-policy.js';
import { permissionChoices } from '../../src/agent/permission-choices.js';
import { createBuiltinTools } from '../../src/tools/builtin-tools.js';
import { createWebFetchTool } from '../../src/tools/web-fetch-tool.js';
import type { AnyTool } from '../../src/contracts/tool.js';
import type { PermissionRuleEntry } from '../../src/storage/permission-rule-file.js';
import { githubCreateIssue, tempProject } from './agent-test-kit.js';

const tools = new Map(createBuiltinTools().map((tool) => [tool.name, tool]));
const bash = tools.get('bash')!;
const writeFile = tools.get('write_file')!;
const mcpCreate = githubCreateIssue;
const mcpClose = { ...mcpCreate, name: 'mcp__github__close_issue' } as AnyTool;

function policy(tools: { allow?: string[]; deny?: string[] } = {}) {
  return new ToolPolicy(parseConfig({ tools }).tools);
}

const cwd = tempProject();
mkdirSync(join(cwd, '.git', 'hooks'), { recursive: true });
const run = (p: ToolPolicy, tool: AnyTool, args: unknown, remembered: PermissionRuleEntry[] = [], mode: 'default' | 'accept-edits' | 'plan' = 'default') =>
  p.decide({ tool, args, cwd }, mode, remembered).action;
const command = (text: string) => ({ command: text });
const allow = (rule: string): PermissionRuleEntry => ({ rule, effect: 'allow' });

describe('scoped permission rules (issue 21, item 6)', () => {
  it('bash(npm test:*) in tools.allow covers npm test and its arguments, every part of a chain must be covered', () => {
    const p = policy({ allow: ['bash(npm test:*)', 'bash(cd web)'] });
    expect(run(p, bash, command('npm test'))).toBe('run');
    expect(run(p, bash, command('npm test -- --watch'))).toBe('run');
    expect(run(p, bash, command('cd web && npm test'))).toBe('run');
    expect(run(p, bash, command('npm testing'))).toBe('ask');
    expect(run(p, bash, command('npm test && rm -rf notes'))).toBe('ask');
    expect(run(p, bash, command('npm test | sh'))).toBe('ask');
    expect(run(p, bash, command('(npm test; rm -rf notes)'))).toBe('ask');
    expect(run(p, bash, command('npm test $(rm -rf notes)'))).toBe('ask');
    expect(run(p, bash, command('npm test `rm -rf notes`'))).toBe('ask');
    expect(run(p, bash, command('npm test > package.json'))).toBe('ask');
    expect(run(p, bash, command('npm test 2>&1 > /dev/null'))).toBe('run');
  });

  it('an exact rule covers that command only; plain tool names keep their meaning', () => {
    expect(run(policy(), bash, command('echo scoped-ok'), [allow('bash(echo scoped-ok)')])).toBe('run');
    expect(run(policy(), bash, command('echo scoped-ok now'), [allow('bash(echo scoped-ok)')])).toBe('ask');
    expect(run(policy(), bash, command('rm -rf notes'), [allow('bash(echo scoped-ok)')])).toBe('ask');
    expect(run(policy({ allow: ['bash'] }), bash, command('rm -rf notes'))).toBe('run');
    expect(run(policy(), bash, command('rm -rf notes'), [allow('bash(echo scoped-ok)')], 'accept-edits')).toBe('ask');
  });

  it('write_file(src/**) covers that folder, and never a protected file', () => {
    const p = policy({ allow: ['write_file(src/**)'] });
    expect(run(p, writeFile, { path: 'src/deep/a.ts', content: '' })).toBe('run');
    expect(run(p, writeFile, { path: 'lib/a.ts', content: '' })).toBe('ask');
    expect(run(p, writeFile, { path: 'src/../lib/a.ts', content: '' })).toBe('ask');
    const everywhere = policy({ allow: ['write_file(**)'] });
    expect(everywhere.decideCall({ tool: writeFile, args: { path: '.git/hooks/pre-commit', content: '' }, cwd }, 'default', [], true).action).toBe('ask');
  });

  it('an MCP rule covers that tool of that server, not the server', () => {
    const remembered = [allow('mcp__github__create_issue')];
    expect(run(policy(), mcpCreate, { title: 'x' }, remembered)).toBe('run');
    expect(run(policy(), mcpClose, { title: 'x' }, remembered)).toBe('ask');
    expect(run(policy({ allow: ['mcp__github__*'] }), mcpClose, { title: 'x' })).toBe('run');
  });

  it('web_fetch(domain:…) covers URLs of that host only', () => {
    const webFetch = createWebFetchTool() as AnyTool;
    const remembered = [allow('web_fetch(domain:example.com)')];
    expect(run(policy(), webFetch, { url: 'https://example.com/a' }, remembered)).toBe('run');
    expect(run(policy(), webFetch, { url: 'https://example.com.evil.test/a' }, remembered)).toBe('ask');
    expect(permissionChoices(webFetch, { url: 'https://Example.com/x' }, cwd, { protectedWrite: false })[1]!.option.name).toBe(
      'Always allow `web_fetch` of `example.com` URLs in this project',
    );
  });

  it('deny rules win, and a deny rule that cannot be checked never lets the call run unasked', () => {
    const p = policy({ allow: ['bash'], deny: ['bash(rm:*)'] });
    expect(run(p, bash, command('echo ok && rm -rf notes'))).toBe('refuse');
    expect(run(p, bash, command('echo ok'))).toBe('run');
    expect(run(p, bash, command('echo $(rm -rf notes)'))).toBe('ask');
    expect(run(policy(), bash, command('rm -rf notes'), [allow('bash'), { rule: 'bash(rm -rf notes)', effect: 'deny' }])).toBe('refuse');
    expect(run(policy({ deny: ['write_file(secrets/**)'] }), writeFile, { path: 'secrets/a', content: '' }, [], 'accept-edits')).toBe('refuse');
    expect(run(policy({ deny: ['write_file(secrets/**)'] }), writeFile, { path: 'src/a', content: '' }, [], 'accept-edits')).toBe('run');
  });

  it('a config rule that is neither a tool name nor tool(scope) is a config error naming the fix', () => {
    expect(() => parseConfig({ tools: { allow: ['bash(npm test'] } })).toThrow(/tools\.allow.*bash\(npm test:\*\)/s);
  });

  it('plan mode stays read-only whatever the rules say', () => {
    const p = policy({ allow: ['*'] });
    expect(run(p, bash, command('echo hi'), [allow('bash')], 'plan')).toBe('refuse');
    expect(p.offers(bash, 'plan')).toBe(false);
    expect(p.offers(tools.get('read_file')!, 'plan')).toBe(true);
  });
});

describe('the permission question names what each option covers', () => {
  const names = (tool: AnyTool, args: unknown, protectedWrite = false) => permissionChoices(tool, args, cwd, { protectedWrite }).map((choice) => choice.option.name);

  it('labels bash options with the exact command and the prefix', () => {
    expect(names(bash, command('npm test -- --watch'))).toEqual([
      'Allow once',
      "Always allow `npm test -- --watch` in this project",
      'Always allow commands starting with `npm test` in this project',
      "Allow `npm test -- --watch` for this session",
      'Reject',
      "Always reject `npm test -- --watch` in this project",
    ]);
    expect(names(bash, command('cd web && npm test'))[1]).toBe('Always allow `cd web` and `npm test` in this project');
    expect(names(bash, command('rm -rf notes'))).not.toContain('Always allow commands starting with `rm` in this project');
  });

  it('offers no "always" where no rule would be honoured', () => {
    expect(names(bash, command('echo $(id)'))).toEqual(['Allow once', 'Reject']);
    expect(names(writeFile, { path: '.git/hooks/pre-commit', content: '' }, true).some((name) => name.startsWith('Always allow'))).toBe(false);
  });

  it('labels file and MCP options with the path, folder or tool', () => {
    expect(names(writeFile, { path: 'src/a.ts', content: '' }).slice(1, 3)).toEqual([
      'Always allow `write_file` on `src/a.ts` in this project',
      'Always allow `write_file` in `src/` and its subfolders in this project',
    ]);
    expect(names(mcpCreate, { title: 'x' })[1]).toBe('Always allow `mcp__github__create_issue` (any arguments) in this project');
  });
});
