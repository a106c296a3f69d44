import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse-config.js';
import { mcpServerSchema } from '../../src/config/schema.js';
import { ToolPolicy } from '../../src/agent/tool-policy.js';
import { permissionChoices } from '../../src/agent/permission-choices.js';
import { createMemoryRuleStore } from '../../src/agent/memory-rule-store.js';
import { mcpServerOrigin } from '../../src/mcp/mcp-server-origin.js';
import type { AnyTool } from '../../src/contracts/tool.js';
import { createPermissionRuleFile, type PermissionRuleEntry } from '../../src/storage/permission-rule-file.js';
import { githubCreateIssue, tempProject } from './agent-test-kit.js';

const server = (fields: Record<string, unknown>) => mcpServerSchema.parse({ id: 'github', ...fields });
const official = mcpServerOrigin(server({ transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-github'] }));
const impostor = mcpServerOrigin(server({ transport: 'stdio', command: 'node', args: ['/tmp/github-lookalike.mjs'] }));

const from = (origin: typeof official | undefined): AnyTool => ({ ...githubCreateIssue, ...(origin ? { origin } : {}) }) as AnyTool;

const cwd = tempProject();
const policy = (allow: string[] = []) => new ToolPolicy(parseConfig({ tools: { allow } }).tools);
const decide = (tool: AnyTool, remembered: PermissionRuleEntry[], p = policy()) => p.decide({ tool, args: { title: 'x' }, cwd }, 'default', remembered);
const allowFor = (origin?: typeof official): PermissionRuleEntry => ({ rule: 'mcp__github__create_issue', effect: 'allow', ...(origin ? { server: origin } : {}) });

describe('an "always" for one MCP server covers that server only, not another of the same name', () => {
  it('the identity is the transport and what it runs, never env, headers or a URL\'s credentials', () => {
    expect(official.key).not.toBe(impostor.key);
    expect(official).toMatchObject({ name: 'github', label: 'npx @modelcontextprotocol/server-github' });
    const withSecrets = server({ transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: 'ghp_secret' } });
    expect(mcpServerOrigin(withSecrets)).toEqual(official);
    expect(mcpServerOrigin(server({ transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-github'], cwd: '/elsewhere' })).key).not.toBe(official.key);
    const remote = mcpServerOrigin(server({ transport: 'http', url: 'https://user:pw@mcp.example.com/mcp?api_key=sekrit#t', headers: { Authorization: 'Bearer sekrit' } }));
    expect(remote.label).toBe('https://mcp.example.com/mcp');
    expect(JSON.stringify(remote)).not.toMatch(/sekrit|pw@/);
    expect(remote.key).toBe(mcpServerOrigin(server({ transport: 'http', url: 'https://mcp.example.com/mcp' })).key);
    expect(remote.key).not.toBe(mcpServerOrigin(server({ transport: 'http', url: 'https://evil.example.com/mcp' })).key);
  });

  it('a remembered allow made for one server runs its tool unasked; another server of that name is asked, saying why', () => {
    expect(decide(from(official), [allowFor(official)])).toEqual({ action: 'run' });
    const asked = decide(from(impostor), [allowFor(official)]);
    expect(asked.action).toBe('ask');
    expect(asked).toMatchObject({ why: expect.stringContaining('the server named github is not the one your earlier answer was for') });
    expect(asked).toMatchObject({ why: expect.stringContaining('npx @modelcontextprotocol/server-github') });
    expect(asked).toMatchObject({ why: expect.stringContaining('node /tmp/github-lookalike.mjs') });
    expect(decide(from(undefined), [allowFor(official)]).action).toBe('ask');
  });

  it('a remembered reject made for one server refuses its tool; another server of that name is asked instead', () => {
    const reject: PermissionRuleEntry = { ...allowFor(official), effect: 'deny' };
    expect(decide(from(official), [reject]).action).toBe('refuse');
    expect(decide(from(impostor), [reject]).action).toBe('ask');
  });

  it('rules with no server (stored before, or hand-written in config) keep matching by name', () => {
    expect(decide(from(impostor), [allowFor(undefined)]).action).toBe('run');
    expect(decide(from(impostor), [], policy(['mcp__github__*'])).action).toBe('run');
  });

  it('the "always" options name the server and remember it', () => {
    const choices = permissionChoices(from(official), { title: 'x' }, cwd, { protectedWrite: false });
    const always = choices.find((choice) => choice.option.optionId === 'allow-always')!;
    expect(always.option.name).toBe('Always allow `mcp__github__create_issue` (any arguments) from github (`npx @modelcontextprotocol/server-github`) in this project');
    expect(choices.filter((choice) => choice.remember).every((choice) => choice.remember!.server?.key === official.key)).toBe(true);
  });

  it('the rules file keeps the server (no secret in it), one rule per server, and still reads a file written before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-rules-'));
    for (const store of [createPermissionRuleFile(dir), createMemoryRuleStore()]) {
      const project = tempProject();
      store.add(project, allowFor(official));
      store.add(project, allowFor(official));
      store.add(project, allowFor(impostor));
      expect(store.list(project).map((entry) => entry.server?.key)).toEqual([official.key, impostor.key]);
      expect(store.remove(project, allowFor(impostor))).toBe(true);
      expect(store.list(project)).toMatchObject([{ rule: 'mcp__github__create_issue', server: official }]);
    }
    const store = createPermissionRuleFile(dir);
    const old = tempProject();
    mkdirSync(dirname(store.location(old)), { recursive: true });
    writeFileSync(store.location(old), JSON.stringify({ project: old, rules: [{ rule: 'mcp__github__create_issue', effect: 'allow' }] }));
    expect(store.list(old)).toEqual([{ rule: 'mcp__github__create_issue', effect: 'allow' }]);
    store.add(old, allowFor(official));
    expect(readFileSync(store.location(old), 'utf8')).not.toContain('ghp_');
    writeFileSync(store.location(old), JSON.stringify({ project: old, rules: [{ rule: 'x', effect: 'allow', server: 'github' }] }));
    expect(() => store.list(old)).toThrow(expect.objectContaining({ code: 'rules_unreadable', message: expect.stringContaining('rules[0].server') }));
  });
});
