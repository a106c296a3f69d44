import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const bed = acpTestBed({ prefix: 'plaited-skill-cmds-' });

function writeSkill(cwd: string, name: string): void {
  mkdirSync(join(cwd, '.plaited/skills', name), { recursive: true });
  writeFileSync(
    join(cwd, '.plaited/skills', name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: The ${name} skill, used by the test to see slash commands follow the disk.\n---\n\nDo ${name}.\n`,
  );
}

/** The skill command names of the session's latest available_commands_update (the agent's own `/permissions` and `/mcp` ride along in each). */
const latestCommands = (cli: AcpCli, sessionId: string): string[] | undefined => {
  const updates = cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update');
  const last = updates.at(-1)?.update as acp.AvailableCommandsUpdate | undefined;
  return last?.availableCommands
    .map((command) => command.name)
    .filter((name) => name !== 'permissions' && name !== 'mcp')
    .sort();
};

describe('available_commands_update follows the skills on disk', () => {
  it('a skill added or removed while the session is open updates its slash commands', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }));
    writeSkill(cwd, 'alpha');
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(() => latestCommands(cli, sessionId)?.join() === 'alpha', 20_000, 'the first commands');

    writeSkill(cwd, 'beta');
    await waitFor(() => latestCommands(cli, sessionId)?.join() === 'alpha,beta', 20_000, 'beta announced');

    rmSync(join(cwd, '.plaited/skills/alpha'), { recursive: true });
    await waitFor(() => latestCommands(cli, sessionId)?.join() === 'beta', 20_000, 'alpha withdrawn');
  });

  it("the user's own skills (~/.config/plaited-agent/skills) come with every project's, and a project's skill of the same name wins", async () => {
    const cwd = bed.project();
    const xdg = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }));
    writeSkill(cwd, 'alpha');
    for (const [name, body] of [['gamma', 'Do gamma.'], ['alpha', 'The user copy of alpha.']]) {
      mkdirSync(join(xdg, 'plaited-agent/skills', name), { recursive: true });
      writeFileSync(join(xdg, 'plaited-agent/skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: The user's ${name}.\n---\n\n${body}\n`);
    }
    const cli = bed.start(cwd, { env: { XDG_CONFIG_HOME: xdg } });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(() => latestCommands(cli, sessionId)?.join() === 'alpha,gamma', 20_000, "the project's and the user's skills");
    const alpha = (cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update').at(-1)!.update as acp.AvailableCommandsUpdate).availableCommands.find(
      (command) => command.name === 'alpha',
    );
    expect(alpha?.description).toContain('slash commands follow the disk');
  });
});
