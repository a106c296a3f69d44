import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';

const MODULE = fileURLToPath(new URL('../../../dist/src/tools/die-with-agent.js', import.meta.url));

const markers: string[] = [];

afterEach(() => {
  for (const marker of markers.splice(0)) spawnSync('pkill', ['-KILL', '-f', marker]);
});

/** Live processes whose command line contains `marker`. */
function running(marker: string): number {
  const found = spawnSync('pgrep', ['-f', '-c', marker], { encoding: 'utf8' });
  if (found.error) throw new Error(`pgrep is needed for this test but could not run: ${found.error.message}`);
  return Number(found.stdout.trim()) || 0;
}

/**
 * A stand-in agent: spawns `bash -c "<delay>; <guarded line>"` the way the
 * runtimes do (its own process group), then is killed with SIGKILL, which no
 * handler can see.
 */
function agentThatDies(options: { delaySeconds: number; killAfterMs: number; marker: string }): Promise<void> {
  const script = `
    import { spawn } from 'node:child_process';
    const { dieWithAgent } = await import(${JSON.stringify(MODULE)});
    spawn('bash', ['-c', 'sleep ${options.delaySeconds}; ' + dieWithAgent('sleep ${options.marker}')], { detached: true, stdio: 'ignore' });
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), ${options.killAfterMs});
    setInterval(() => {}, 1000);
  `;
  const agent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
  return new Promise((resolve) => agent.once('exit', () => resolve()));
}

describe('dieWithAgent', () => {
  it('a line that starts after its agent was killed does not run on (the window before bubblewrap arms --die-with-parent)', async () => {
    const marker = `${300 + Math.floor(Math.random() * 600)}.5151`;
    markers.push(marker);
    await agentThatDies({ delaySeconds: 0.6, killAfterMs: 50, marker });
    // The wrapper names the marker too: once nothing does, the line has either been refused or is running unguarded.
    await waitFor(() => running(marker) === 0, 15_000, 'the orphaned line to give up');
    expect(running(marker)).toBe(0);
  });

  it('a line that is already running dies with its agent', async () => {
    const marker = `${300 + Math.floor(Math.random() * 600)}.6262`;
    markers.push(marker);
    const dead = agentThatDies({ delaySeconds: 0, killAfterMs: 2_000, marker });
    await waitFor(() => running(`^sleep ${marker}$`) > 0, 15_000, 'the guarded sleep to start');
    await dead;
    await waitFor(() => running(marker) === 0, 15_000, 'the sleep to die with its agent');
  });
});
