import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { requireTestModel } from '../model/test-models.js';

// The README's worked example (an MCP server, a skill and a rule), taken from the README itself and
// run through the real CLI, so the documentation cannot drift from what the agent does. Two
// substitutions, because tests run offline: the MCP server is the fixture server under the same id,
// and the embedder is the test GloVe model.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtureServer = join(root, 'test/fixtures/mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-readme-' });

function readmeExample(): { config: Record<string, unknown>; skill: string; rules: string } {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Skills, rules and a worked example'));
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1], body: m[2] }));
  const json = blocks.find((b) => b.lang === 'json');
  const [skill, rules] = blocks.filter((b) => b.lang === 'markdown').map((b) => b.body);
  if (!json || !skill || !rules) throw new Error('the README lost its worked example (a json block and two markdown blocks)');
  return { config: JSON.parse(json.body) as Record<string, unknown>, skill, rules };
}

describe("the README's worked example", () => {
  it('connects the MCP server, offers the skill as a command and in the catalog, and applies both rule tiers', { timeout: 90_000 }, async () => {
    const { config, skill, rules } = readmeExample();
    const mcp = config.mcp as { servers: Array<Record<string, unknown>> };
    mcp.servers = mcp.servers.map((server) => ({ ...server, command: process.execPath, args: [fixtureServer, '--name', String(server.id)] }));
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited/skills/changelog/references'), { recursive: true });
    mkdirSync(join(cwd, 'docs'));
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({ ...config, embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }),
    );
    writeFileSync(join(cwd, '.plaited/skills/changelog/SKILL.md'), skill);
    writeFileSync(join(cwd, '.plaited/skills/changelog/references/style.md'), 'Use the imperative mood.\n');
    writeFileSync(join(cwd, 'AGENTS.md'), rules);
    writeFileSync(join(cwd, 'docs/release-rules.md'), 'RELEASE-RULES-MARKER: tag releases as vX.Y.Z.\n');

    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(
      () =>
        cli.updates.some(
          (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update' && n.update.availableCommands.some((c) => c.name === 'changelog'),
        ),
      20_000,
    );

    // The configured server connects in the background: prompt until its tools are offered.
    let offered: string[] = [];
    for (let attempt = 0; attempt < 60 && !offered.includes('mcp__fs__echo'); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      bed.server.push({ text: 'ok' });
      const before = bed.server.requests.length;
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
      offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    }
    expect(offered).toContain('mcp__fs__echo');
    expect(offered).toContain('read_skill');
    const first = JSON.stringify(bed.server.requests.at(-1)!.messages);
    expect(first).toContain('Run `npm test` before saying a change is done.'); // tier 1: always
    expect(first).toContain('changelog'); // the skill catalog
    expect(first).not.toContain('RELEASE-RULES-MARKER');

    // Tier 2: a request about releases loads the linked rules file.
    bed.server.push({ text: 'ok' });
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what are the release rules?' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(JSON.stringify(bed.server.requests[before]!.messages)).toContain('RELEASE-RULES-MARKER');
  });
});
