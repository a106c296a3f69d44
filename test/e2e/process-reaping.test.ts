import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';
import { waitFor } from '../helpers/wait-for.js';
import { pathWithoutBubblewrap } from '../helpers/path-without-bubblewrap.js';

const bed = acpTestBed({ prefix: 'plaited-reap-' });

async function startSleeps(cli: AcpCli, cwd: string): Promise<{ inGroup: string; leftGroup: string }> {
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  const inGroup = uniqueSleep();
  const leftGroup = uniqueSleep();
  bed.server.push({ toolCalls: [{ id: 'bg', name: 'bash', arguments: { command: `setsid ${leftGroup} & ${inGroup}`, background: true } }] }, { text: 'Started.' });
  await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'start the servers' }] });
  await waitFor(() => processesMatching(inGroup).length > 0 && processesMatching(leftGroup).length > 0, 10_000, 'both sleeps to start');
  return { inGroup, leftGroup };
}

describe('commands left running by an agent killed with SIGKILL (the built CLI)', () => {
  it('without bubblewrap, the next start in the project reaps them: the command, its process group and what left the group', async () => {
    const cwd = bed.project();
    const env = { PATH: pathWithoutBubblewrap(['bash', 'sh', 'setsid', 'sleep', 'env', 'cat', 'ps']) };
    const first = bed.start(cwd, { env });
    const { inGroup, leftGroup } = await startSleeps(first, cwd);

    first.child.kill('SIGKILL');
    await first.exited;
    // Nothing ran on the way out: both are orphans now.
    expect(processesMatching(inGroup)).not.toEqual([]);
    expect(processesMatching(leftGroup)).not.toEqual([]);

    const second = bed.start(cwd, { env });
    await initialize(second);
    await waitFor(() => processesMatching(inGroup).length === 0 && processesMatching(leftGroup).length === 0, 10_000, 'the orphans to be reaped');
    expect(second.stderr()).toMatch(/stopped 1 command\(s\) a previous plaited-agent left running/);
  });

  it('under the read-only layer, they die with the agent: its pid namespace ends with it', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const { inGroup, leftGroup } = await startSleeps(first, cwd);

    first.child.kill('SIGKILL');
    await first.exited;
    await waitFor(() => processesMatching(inGroup).length === 0 && processesMatching(leftGroup).length === 0, 10_000, 'the commands to die with the agent');
  });
});
