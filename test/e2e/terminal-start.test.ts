import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

// The bare start in a real terminal (tmux, on a socket of each test's own: a server that is still
// exiting after the last test's kill-server would refuse the next session): a person who typed
// `plaited-agent` learns it is an ACP server and what to run instead (issue 25, item 3).
let run = 0;
const socket = () => `plaited-terminal-${process.pid}-${run}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket(), ...args], { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-J', '-t', 'cli').stdout;
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

afterEach(() => {
  tmux('kill-server');
  run++;
});

function startInTerminal(args: string[]): void {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-terminal-'));
  const command = [process.execPath, CLI, ...args].map((word) => `'${word}'`).join(' ');
  const started = tmux('new-session', '-d', '-s', 'cli', '-x', '250', '-y', '50', '-c', cwd, command);
  expect(started.status, started.stderr).toBe(0);
}

describe('the bare start in a terminal', () => {
  it('says on stderr that this is an ACP server for editors, names chat and -p, and still serves ACP', async () => {
    startInTerminal([]);
    await waitFor(() => pane().includes('Agent Client Protocol server for editors'), 20_000, 'the hint in the terminal');
    expect(pane().split('Agent Client Protocol server for editors')).toHaveLength(2); // once
    expect(pane()).toContain('plaited-agent chat');
    expect(pane()).toContain('plaited-agent -p "task"');
    tmux('send-keys', '-t', 'cli', '-l', INITIALIZE);
    tmux('send-keys', '-t', 'cli', 'Enter');
    await waitFor(() => pane().includes('agentCapabilities'), 20_000, 'the initialize answer');
  });

  it('says nothing when an adapter was asked for explicitly', async () => {
    startInTerminal(['--adapter', 'acp']);
    tmux('send-keys', '-t', 'cli', '-l', INITIALIZE);
    tmux('send-keys', '-t', 'cli', 'Enter');
    await waitFor(() => pane().includes('agentCapabilities'), 20_000, 'the initialize answer');
    expect(pane()).not.toContain('Agent Client Protocol server for editors');
  });
});
