import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = acpTestBed({ prefix: 'plaited-reap-' });

describe('commands left running by an agent killed with SIGKILL (the built CLI)', () => {
  it('the next start in the project reaps them: the command, its process group and what left the group', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    await initialize(first);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    const inGroup = uniqueSleep();
    const leftGroup = uniqueSleep();
    bed.server.push({ toolCalls: [{ id: 'bg', name: 'bash', arguments: { command: `setsid ${leftGroup} & ${inGroup}`, background: true } }] }, { text: 'Started.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'start the servers' }] });
    await waitFor(() => processesMatching(inGroup).length > 0 && processesMatching(leftGroup).length > 0, 10_000, 'both sleeps to start');

    first.child.kill('SIGKILL');
    await first.exited;
    // Nothing ran on the way out: both are orphans now.
    expect(processesMatching(inGroup)).not.toEqual([]);
    expect(processesMatching(leftGroup)).not.toEqual([]);

    const second = bed.start(cwd);
    await initialize(second);
    await waitFor(() => processesMatching(inGroup).length === 0 && processesMatching(leftGroup).length === 0, 10_000, 'the orphans to be reaped');
    expect(second.stderr()).toMatch(/stopped 1 command\(s\) a previous plaited-agent left running/);
  });
});
