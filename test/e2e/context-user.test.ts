import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireTestModel } from '../model/test-models.js';
import { newSession, project, prompt, start, state, useScenario } from './behaviours-kit.js';

useScenario();

/** Everything the model was sent (system prompts and tool results alike), as one text. */
const sentToModel = () => JSON.stringify(state.server.requests.map((request) => request.messages));

/** A project config on the offline test embedder, so rule links are matched as in a real project. */
const config = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 }, ...extra });

describe('the context user: rules, skills, memory and plans through the CLI over ACP', () => {
  it('a rules file that leads outside the project (a link, a symlinked nested AGENTS.md) stays out of the prompt, said on stderr; agent.allowedRoots lets it in', { timeout: 60_000 }, async () => {
    const outside = mkdtempSync(join(tmpdir(), 'plaited-outside-'));
    writeFileSync(join(outside, 'deploy.md'), '# Deployment\nOUTSIDE-SECRET-LINK aws_secret_access_key=abc\n');
    writeFileSync(join(outside, 'key.md'), 'OUTSIDE-SECRET-SYMLINK -----BEGIN OPENSSH PRIVATE KEY-----\n');
    const rules = (cwd: string) => {
      writeFileSync(join(cwd, 'AGENTS.md'), `# Rules\n- Be brief.\n- Deployment follows [the deployment notes](${relative(cwd, join(outside, 'deploy.md'))}).\n`);
      mkdirSync(join(cwd, 'sub'));
      writeFileSync(join(cwd, 'sub', 'notes.txt'), 'notes\n');
      symlinkSync(join(outside, 'key.md'), join(cwd, 'sub', 'AGENTS.md'));
    };

    const cwd = project(config());
    rules(cwd);
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'sub/notes.txt' } }] }, { text: 'Deployed.' });
    expect((await prompt(cli, sessionId, 'explain the deployment notes')).stopReason).toBe('end_turn');
    expect(sentToModel()).toContain('Be brief.');
    expect(sentToModel()).not.toContain('OUTSIDE-SECRET');
    expect(cli.stderr()).toMatch(/the rules file \S+deploy\.md is left out of the prompt: it leads outside the project/);
    expect(cli.stderr()).toMatch(/the rules file \S+sub\/AGENTS\.md is left out of the prompt: it leads outside the project .*agent\.allowedRoots/);

    // The user who means it names the folder, as for the file tools.
    const allowed = project(config({ agent: { allowedRoots: [outside] } }));
    rules(allowed);
    const again = start(allowed);
    const second = await newSession(again, allowed);
    const before = state.server.requests.length;
    state.server.push({ text: 'Deployed.' });
    await prompt(again, second.sessionId, 'explain the deployment notes');
    expect(JSON.stringify(state.server.requests.slice(before))).toContain('OUTSIDE-SECRET-LINK');
  });
});
