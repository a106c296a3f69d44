import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BWRAP_START_TRIES, RESTORE_STDERR, retryBwrapStart } from '../../src/tools/retry-bwrap-start.js';
import { shellQuote } from '../../src/tools/shell-quote.js';

/** Runs the snippet around `bwrap <binds> -- bash -c <RESTORE_STDERR><command>` with sh (dash here), as the MCP wrapper does. */
function run(binds: string[], command: string, tmp: string, bwrap = 'bwrap') {
  const args = ['--dev-bind', '/', '/', ...binds, '--', 'bash', '-c', `${RESTORE_STDERR}${command}`].map(shellQuote).join(' ');
  return spawnSync('/bin/sh', ['-c', retryBwrapStart(shellQuote(bwrap), args)], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
}

describe('retryBwrapStart', () => {
  it("passes the command's own stdout, stderr and exit code through, and leaves no file behind", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-retry-'));
    const result = run([], 'echo out; echo err >&2; ls /proc/self/fd >&2; exit 7', tmp);
    expect(result.status).toBe(7);
    expect(result.stdout).toBe('out\n');
    const [said, ...fds] = result.stderr.trim().split('\n');
    expect(said).toBe('err');
    // The snippet's descriptors (6 to 9) are not the command's.
    expect(fds.filter((fd) => ['6', '7', '8', '9'].includes(fd))).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('starts a bubblewrap older than --json-status-fd once, as before', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-retry-'));
    const bin = mkdtempSync(join(tmpdir(), 'plaited-old-bwrap-'));
    // bubblewrap 0.3's answer to the option, then the real one without it.
    const old = join(bin, 'bwrap');
    writeFileSync(old, `#!/bin/sh\ncase " $* " in *" --json-status-fd "*) echo 'bwrap: Unknown option --json-status-fd' >&2; exit 1 ;; esac\nexec bwrap "$@"\n`, { mode: 0o755 });
    const result = run([], 'echo out; echo err >&2; exit 3', tmp, old);
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('out\n');
    expect(result.stderr).toBe('err\n');
  });

  it('gives up after its tries when the bound file stays gone, naming it, its cause and what to do', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-retry-'));
    const gone = join(tmp, 'config.json');
    const result = run(['--ro-bind', gone, gone], `echo ran >> ${shellQuote(join(tmp, 'runs'))}`, tmp);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`bwrap: Can't find source path ${gone}`);
    expect(result.stderr).toContain(
      `plaited-agent: the sandbox could not start: ${gone} was replaced or removed while bubblewrap bound it read-only, in each of ${BWRAP_START_TRIES} tries`,
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("never runs a command twice because it printed bwrap's words and failed: bwrap says whether it ran", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-retry-'));
    const runs = join(tmp, 'runs');
    const result = run([], `echo ran >> ${shellQuote(runs)}; echo "bwrap: Can't find source path /etc/hostname: No such file or directory" >&2; exit 1`, tmp);
    expect(result.status).toBe(1);
    expect(readFileSync(runs, 'utf8')).toBe('ran\n');
    expect(result.stderr).not.toContain('plaited-agent:');
  });
});
