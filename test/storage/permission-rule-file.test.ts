import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPermissionRuleFile } from '../../src/storage/permission-rule-file.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from '../agent/agent-test-kit.js';

const asked = (events: Awaited<ReturnType<typeof collect>>) => events.filter((event) => event.type === 'permission-request').length;

describe('the project rules file', () => {
  it('keeps rules per project, readable, and removes one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-rules-'));
    const store = createPermissionRuleFile(dir);
    store.add('/work/a', { rule: 'bash(npm test:*)', effect: 'allow' });
    store.add('/work/a', { rule: 'bash(npm test:*)', effect: 'allow' });
    expect(store.list('/work/a')).toMatchObject([{ rule: 'bash(npm test:*)', effect: 'allow' }]);
    expect(store.list('/work/b')).toEqual([]);
    expect(JSON.parse(readFileSync(store.location('/work/a'), 'utf8'))).toMatchObject({ project: '/work/a' });
    expect(store.remove('/work/a', { rule: 'bash(npm test:*)', effect: 'allow' })).toBe(true);
    expect(store.list('/work/a')).toEqual([]);
  });

  it('a broken file is a typed error naming the file, and then every call that changes something asks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-rules-'));
    const store = createPermissionRuleFile(dir);
    const cwd = tempProject();
    mkdirSync(dirname(store.location(cwd)), { recursive: true });
    writeFileSync(store.location(cwd), '{ "rules": [ { "rule": "bash(rm:*)", "effect": "deny" }');
    expect(() => store.list(cwd)).toThrow(expect.objectContaining({ code: 'rules_unreadable', path: store.location(cwd) }));
    // A named pipe in its place (read on every call that asks) is refused at once, never waited on.
    const piped = tempProject();
    mkdirSync(dirname(store.location(piped)), { recursive: true });
    execFileSync('mkfifo', [store.location(piped)]);
    expect(() => store.list(piped)).toThrow(expect.objectContaining({ code: 'rules_unreadable', message: expect.stringContaining('ENOTFILE') }));
    // The fix named keeps the rules: never "delete the file".
    expect(() => store.list(cwd)).toThrow(`Fix it, or move it aside (mv "${store.location(cwd)}" "${store.location(cwd)}.damaged")`);

    const agent = makeAgent(scriptedModel([{ toolCalls: [{ name: 'bash', input: { command: 'rm -f x' } }] }, { text: 'ok' }]), { tools: { allow: ['bash'] } }, { permissionRules: store });
    const session = await agent.sessions.create({ cwd });
    expect(asked(await collect(agent, session.sessionId, 'go', () => 'reject-once'))).toBe(1);
    // An "always" answer meanwhile is not written over the damaged file (its other rules would be lost).
    const always = makeAgent(scriptedModel([{ toolCalls: [{ name: 'bash', input: { command: 'echo hi' } }] }, { text: 'ok' }]), {}, { permissionRules: store });
    const second = await always.sessions.create({ cwd });
    expect(asked(await collect(always, second.sessionId, 'go', () => 'allow-always'))).toBe(1);
    expect(readFileSync(store.location(cwd), 'utf8')).toBe('{ "rules": [ { "rule": "bash(rm:*)", "effect": "deny" }');
  });

  it('a rule that cannot be saved holds for the session, and a warning says so', async () => {
    // A folder the agent may read but not write (a sandbox that keeps it read-only).
    const file = createPermissionRuleFile(mkdtempSync(join(tmpdir(), 'plaited-rules-')));
    const store = {
      ...file,
      add: () => {
        throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      },
    };
    const cwd = tempProject();
    const step = { toolCalls: [{ name: 'bash', input: { command: 'echo saved' } }] };
    const agent = makeAgent(scriptedModel([step, { text: 'ok' }, step, { text: 'ok' }]), {}, { permissionRules: store });
    const session = await agent.sessions.create({ cwd });
    const first = await collect(agent, session.sessionId, 'go', () => 'allow-always');
    expect(asked(first)).toBe(1);
    const notice = first.find((event) => event.type === 'notice');
    expect(notice?.type === 'notice' && notice.message).toMatch(/Could not save the permission rule.*holds for this session only/);
    expect(asked(await collect(agent, session.sessionId, 'again', () => 'reject-once'))).toBe(0);
  });
});
