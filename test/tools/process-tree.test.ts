import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { waitFor } from '../helpers/wait-for.js';
import { makeAgent, tempProject } from '../agent/agent-test-kit.js';

/** Live processes whose command line contains `marker` (pgrep -f, as a user would check). */
function alive(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => !isZombie(pid));
  } catch {
    return []; // pgrep exits 1 when nothing matches.
  }
}

function isZombie(pid: number): boolean {
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return true;
  }
}

/** A command that leaves its process group and session every way a shell can, then waits. */
function escapingCommand(marker: string): string {
  return [
    `setsid sleep 1001${marker} &`,
    `setsid -f bash -c 'sleep 1002${marker}; :'`,
    `(setsid bash -c 'sleep 1003${marker} & wait' &)`,
    `nohup setsid sleep 1004${marker} >/dev/null 2>&1 &`,
    `sleep 1005${marker}`,
  ].join('\n');
}

describe('a cancelled command leaves no process behind', () => {
  it('kills setsid and double-forked children on abort (local runtime)', async () => {
    const marker = String(process.pid) + String(Date.now() % 100000);
    const runtime = createLocalRuntime(tempProject());
    const controller = new AbortController();
    const running = runtime.exec(escapingCommand(marker), { signal: controller.signal });
    await waitFor(() => alive(marker).length >= 5, 10_000, 'the five sleeps');
    controller.abort();
    const result = await running;
    expect(result.exitCode === null || result.signal !== null || result.exitCode !== 0).toBe(true);
    await waitFor(() => alive(marker).length === 0, 10_000, 'no orphan left');
    expect(alive(marker)).toEqual([]);
  });

  it('kills them on a timeout too', async () => {
    const marker = String(process.pid) + String((Date.now() + 7) % 100000);
    const runtime = createLocalRuntime(tempProject());
    const result = await runtime.exec(`${escapingCommand(marker)}`, { timeoutMs: 1_500 });
    expect(result.timedOut).toBe(true);
    await waitFor(() => alive(marker).length === 0, 10_000, 'no orphan left');
  });

  it('cancelling a turn whose bash call started setsid children leaves none', async () => {
    const marker = String(process.pid) + String((Date.now() + 13) % 100000);
    const agent = makeAgent(scriptedModel([{ toolCalls: [{ name: 'bash', input: { command: escapingCommand(marker) } }] }, { text: 'never' }]), {
      tools: { allow: ['bash'] },
    });
    const session = await agent.sessions.create({ cwd: tempProject() });
    const controller = new AbortController();
    const turn = (async () => {
      for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] }, { signal: controller.signal })) {
        void event;
      }
    })();
    await waitFor(() => alive(marker).length >= 5, 10_000, 'the five sleeps');
    controller.abort();
    await turn;
    await waitFor(() => alive(marker).length === 0, 10_000, 'no orphan left');
  });
});
