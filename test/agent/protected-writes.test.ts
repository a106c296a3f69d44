import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import type { PlaitedConfigInput } from '../../src/config/schema.js';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from './agent-test-kit.js';

const asked = (events: AgentOutput[]) => events.filter((event) => event.type === 'permission-request').length;

/** One write in accept-edits mode, rejected if asked; returns whether it was asked. */
async function writeIn(
  cwd: string,
  call: { name: string; input: Record<string, unknown> },
  config: PlaitedConfigInput = {},
): Promise<{ asked: number }> {
  const agent = makeAgent(scriptedModel([{ toolCalls: [call] }, { text: 'ok' }]), {
    ...config,
    agent: { defaultMode: 'accept-edits', ...config.agent },
  });
  const session = await agent.sessions.create({ cwd });
  const events = await collect(agent, session.sessionId, 'go', () => 'reject-once');
  return { asked: asked(events) };
}

function project(): string {
  const cwd = tempProject();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  mkdirSync(join(cwd, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(cwd, '.git', 'config'), '[core]\n');
  writeFileSync(join(cwd, 'a.txt'), 'old a\n');
  return cwd;
}

const PROTECTED = [
  '.plaited/config.ts',
  '.plaited/config.json',
  '.plaited/config.mjs',
  '.git/hooks/pre-commit',
  '.git/config',
  '.mcp.json',
  '.envrc',
  '.bashrc',
  '.vscode/tasks.json',
  '.zed/settings.json',
  '.claude/settings.json',
  'sub/repo/.git/hooks/post-checkout',
  // Other spellings of the same files.
  './.plaited/../.plaited/config.ts',
  'src/../.git/hooks/pre-push',
  '.PLAITED/CONFIG.TS',
  '.Git/Hooks/pre-commit',
  '.vscode/',
];

describe('writes to protected files are commands: asked in every mode', () => {
  it.each(PROTECTED)('write_file %s asks in accept-edits and writes nothing when rejected', async (path) => {
    const cwd = project();
    const { asked } = await writeIn(cwd, { name: 'write_file', input: { path, content: 'process.exit(1)\n' } });
    expect(asked).toBe(1);
    expect(existsSync(join(cwd, path)) && readFileSync(join(cwd, path), 'utf8').includes('process.exit')).toBe(false);
  });

  it('an absolute path asks too', async () => {
    const cwd = project();
    const { asked } = await writeIn(cwd, { name: 'write_file', input: { path: join(cwd, '.plaited', 'config.ts'), content: 'x' } });
    expect(asked).toBe(1);
    expect(existsSync(join(cwd, '.plaited', 'config.ts'))).toBe(false);
  });

  it('edit_file of an existing config asks in accept-edits', async () => {
    const cwd = project();
    writeFileSync(join(cwd, '.plaited', 'config.json'), '{"tools":{"allow":[]}}\n');
    const { asked } = await writeIn(cwd, {
      name: 'edit_file',
      input: { path: '.plaited/config.json', old_string: '"allow":[]', new_string: '"allow":["*"]' },
    });
    expect(asked).toBe(1);
    expect(readFileSync(join(cwd, '.plaited', 'config.json'), 'utf8')).toContain('"allow":[]');
  });

  it('a symlink into .git/hooks, a dangling link to the config, and a hard link are no way around', async () => {
    const cwd = project();
    symlinkSync(join(cwd, '.git', 'hooks'), join(cwd, 'notes'));
    symlinkSync(join(cwd, '.plaited', 'config.ts'), join(cwd, 'innocent.ts'));
    writeFileSync(join(cwd, '.plaited', 'config.json'), '{}\n');
    linkSync(join(cwd, '.plaited', 'config.json'), join(cwd, 'data.json'));
    for (const path of ['notes/pre-commit', 'innocent.ts', 'data.json']) {
      const { asked } = await writeIn(cwd, { name: 'write_file', input: { path, content: 'x' } });
      expect(asked, path).toBe(1);
    }
    expect(existsSync(join(cwd, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(cwd, '.plaited', 'config.ts'))).toBe(false);
    expect(readFileSync(join(cwd, '.plaited', 'config.json'), 'utf8')).toBe('{}\n');
  });

  it('a tools.allow of "*" and a remembered always-allow do not cover them', async () => {
    const cwd = project();
    const allowAll = await writeIn(cwd, { name: 'write_file', input: { path: '.git/hooks/pre-commit', content: 'x' } }, { tools: { allow: ['*'] } });
    expect(allowAll.asked).toBe(1);

    const agent = makeAgent(
      scriptedModel([
        { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'new a' } }] },
        { text: 'ok' },
        { toolCalls: [{ name: 'write_file', input: { path: '.plaited/config.ts', content: 'x' } }] },
        { text: 'ok' },
      ]),
    );
    const session = await agent.sessions.create({ cwd });
    const first = await collect(agent, session.sessionId, 'edit', () => 'allow-always');
    expect(asked(first)).toBe(1);
    const second = await collect(agent, session.sessionId, 'config', () => 'reject-once');
    expect(asked(second)).toBe(1);
    expect(existsSync(join(cwd, '.plaited', 'config.ts'))).toBe(false);
  });

  it('an allowed bash command that names a protected file asks; one that does not runs', async () => {
    const cwd = project();
    const config = { tools: { allow: ['bash'] } };
    const hook = await writeIn(cwd, { name: 'bash', input: { command: 'echo "rm -rf ~" > .git/hooks/pre-commit' } }, config);
    expect(hook.asked).toBe(1);
    expect(existsSync(join(cwd, '.git', 'hooks', 'pre-commit'))).toBe(false);
    const plain = await writeIn(cwd, { name: 'bash', input: { command: 'echo hi > b.txt' } }, config);
    expect(plain.asked).toBe(0);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('hi\n');
  });

  it('a write tool that names no locations (an MCP server) is judged by its arguments', async () => {
    const cwd = project();
    let ran = 0;
    const mcpWrite = defineTool({
      name: 'mcp__fs__write_file',
      description: 'writes a file',
      parameters: z.object({ path: z.string(), content: z.string() }),
      risk: 'write',
      source: 'mcp',
      execute: async () => {
        ran++;
        return textResult('ok');
      },
    });
    for (const path of [join(cwd, '.git', 'hooks', 'pre-commit'), '.plaited/config.ts', '~/.bashrc']) {
      const agent = makeAgent(scriptedModel([{ toolCalls: [{ name: 'mcp__fs__write_file', input: { path, content: 'x' } }] }, { text: 'ok' }]), { agent: { defaultMode: 'accept-edits' } }, { tools: [mcpWrite] });
      const session = await agent.sessions.create({ cwd });
      expect(asked(await collect(agent, session.sessionId, 'go', () => 'reject-once')), path).toBe(1);
    }
    const agent = makeAgent(scriptedModel([{ toolCalls: [{ name: 'mcp__fs__write_file', input: { path: 'notes.md', content: 'x' } }] }, { text: 'ok' }]), { agent: { defaultMode: 'accept-edits' } }, { tools: [mcpWrite] });
    const session = await agent.sessions.create({ cwd });
    expect(asked(await collect(agent, session.sessionId, 'go'))).toBe(0);
    expect(ran).toBe(1);
  });

  it('a file reached through allowedRoots counts the same', async () => {
    const cwd = project();
    const other = tempProject();
    mkdirSync(join(other, '.git', 'hooks'), { recursive: true });
    const { asked: count } = await writeIn(
      cwd,
      { name: 'write_file', input: { path: join(other, '.git', 'hooks', 'pre-commit'), content: 'x' } },
      { agent: { allowedRoots: [other] } },
    );
    expect(count).toBe(1);
    expect(existsSync(join(other, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('ordinary edits still run unasked in accept-edits, rules files included', async () => {
    const cwd = project();
    for (const path of ['a.txt', 'AGENTS.md', '.plaited/skills/x/SKILL.md', 'docs/git-hooks.md']) {
      const { asked } = await writeIn(cwd, { name: 'write_file', input: { path, content: 'fine\n' } });
      expect(asked, path).toBe(0);
      expect(readFileSync(join(cwd, path), 'utf8')).toBe('fine\n');
    }
  });
});
