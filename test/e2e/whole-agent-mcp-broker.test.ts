import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { RUNTIMES } from '../helpers/runtimes.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from '../adapters/sandbox/acp-cli-harness.js';
import { requirePrograms } from '../adapters/sandbox/sandbox-fixture.js';

/**
 * Issue 21, whole-agent sandbox: a stdio MCP server configured for the agent is started by the
 * launcher in a sandbox of its own (the command broker), not by the agent inside its walls. Its
 * tools are listed and called through the agent as before, it gets its config's `env` and no
 * secret, and it reaches neither the agent's state (`.plaited/state/`: every principal's
 * transcripts) nor the agent process in `/proc`; it ends with the agent. Under Node and Bun
 * (whose end of the broker's channel is read as a file).
 */

const probeServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/probe-server.mjs');

const bed = acpTestBed({
  prefix: 'plaited-mcp-broker-e2e-',
  args: ['--adapter', 'sandbox', '--adapter', 'acp'],
  before: () => {
    requirePrograms('bwrap', 'socat');
    requireBuiltCli();
  },
});

describe.each(RUNTIMES)('whole-agent sandbox under %s: stdio MCP servers run in a sandbox of their own', (runtime) => {
  it("a configured stdio server's tools are listed and called; it reads neither the agent's state nor the agent process", async () => {
    const cwd = bed.project();
    const tag = `plaited-mcp-probe-${process.pid}-${Date.now()}`;
    writeConfig(cwd, {
      mcp: {
        servers: [
          {
            id: 'probe',
            transport: 'stdio',
            command: process.execPath,
            args: [probeServer, '--project', cwd, '--marker', 'remember-marker-58', '--tag', tag],
            env: { PROBE_SETTING: 'from-config' },
          },
        ],
      },
    });
    const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'plaited-mcp-broker-home-')), PLAITED_API_KEY: 'sk-probe-secret' };
    const cli = bed.start(cwd, { env, runtime });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'Noted.' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember-marker-5813 is the word' }] });

    bed.server.push({ toolCalls: [{ name: 'mcp__probe__probe', arguments: {} }] }, { text: 'Probed.' });
    const before = bed.server.requests.length;
    const updates = cli.updates.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'probe' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(bed.server.requests[before]!.tools?.map((tool) => tool.function.name)).toContain('mcp__probe__probe');
    const final = cli.updates
      .slice(updates)
      .map((record) => record.update as SessionUpdateRecord['update'])
      .find((update) => update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed'));
    const probed = toolCallText(final!);
    expect(probed).toContain('probe-done');
    expect(probed).toContain('entries: 0');
    expect(probed).toContain('transcript: 0');
    expect(probed).not.toContain('agent-visible');
    expect(probed).toContain('secret-env: none');
    expect(probed).toContain('config-env: from-config');
    // The server runs (outside the agent's namespace) until the agent ends, then goes with it.
    expect(spawnSync('pgrep', ['-f', tag]).status).toBe(0);
    await bed.closeNow(cli);
    await waitFor(() => spawnSync('pgrep', ['-f', tag]).status !== 0, 15_000, 'the MCP server to be gone');
  }, 120_000);
});
