import { describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { explainSandboxFailure, type ExplainInput } from '../../../src/adapters/sandbox/explain-sandbox-failure.js';
import { createSandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';

const policy = createSandboxPolicy({
  config: sandboxSchema.parse({ limits: { memory: '256M', processes: 64 } }),
  cwd: '/work/project',
  home: '/home/user',
});

function explain(output: string, extra: Partial<ExplainInput> = {}): string[] {
  return explainSandboxFailure({ output, exitCode: 1, signal: null, timedOut: false, cwd: '/work/project', policy, networkDenials: [], ...extra }).map((finding) => finding.message);
}

describe('explainSandboxFailure', () => {
  it('names blocked writes from shell, coreutils, Node and Python errors', () => {
    expect(explain('bash: line 1: /etc/passwd: Read-only file system')[0]).toMatch(/^blocked by sandbox: write to \/etc\/passwd/);
    expect(explain("touch: cannot touch '/usr/local/x': Read-only file system")[0]).toMatch(/^blocked by sandbox: write to \/usr\/local\/x/);
    expect(explain("Error: EROFS: read-only file system, open '/etc/hosts'")[0]).toMatch(/^blocked by sandbox: write to \/etc\/hosts/);
    expect(explain("OSError: [Errno 30] Read-only file system: 'notes.txt'")[0]).toMatch(/^blocked by sandbox: write to notes\.txt/);
  });

  it('names blocked reads only for protected paths', () => {
    expect(explain('cat: /home/user/.ssh/id_rsa: No such file or directory')).toEqual(['blocked by sandbox: read of /home/user/.ssh/id_rsa (a protected path)']);
    expect(explain('cat: .env: Permission denied')).toEqual(['blocked by sandbox: read of .env (a protected path)']);
    expect(explain('cat: .env.local: Permission denied')).toEqual(['blocked by sandbox: read of .env.local (a protected path)']);
    // An ordinary missing file is not the sandbox's doing.
    expect(explain('cat: missing.txt: No such file or directory')).toEqual([]);
  });

  it('names a refused read of another process or an unreadable file as a read, not a write', () => {
    expect(explain('bash: line 3: /proc/4242/environ: Permission denied')).toEqual(['read of /proc/4242/environ refused: permission denied']);
    expect(explain("tr: /proc/1/environ: Permission denied")).toEqual(['read of /proc/1/environ refused: permission denied']);
    expect(explain("Error: EACCES: permission denied, open '/proc/7/cmdline'")).toEqual(['read of /proc/7/cmdline refused: permission denied']);
    expect(explain('cat: /etc/hostname: Permission denied')).toEqual(['read of /etc/hostname refused: permission denied']);
    // A write that names itself stays a write.
    expect(explain("touch: cannot touch '/etc/hostname': Permission denied")[0]).toMatch(/^blocked by sandbox: write to \/etc\/hostname/);
    expect(explain('bash: /usr/new-file: Permission denied')[0]).toMatch(/^blocked by sandbox: write to \/usr\/new-file/);
  });

  it('writes inside ./output are not reported', () => {
    expect(explain('bash: output/x: No such file or directory')).toEqual([]);
  });

  it('names network denials from the proxy, DNS failures and refused loopback ports', () => {
    expect(explain('', { exitCode: 0, networkDenials: ['deny network-outbound example.com:443 (host is not on the allow list)'] })).toEqual([
      'blocked by sandbox: network access to example.com is not allowed (no hosts are allowed)',
    ]);
    expect(explain('TypeError: fetch failed getaddrinfo EAI_AGAIN example.org')[0]).toMatch(/network access to example\.org is not allowed/);
    expect(explain('curl: (6) Could not resolve host: evil.test')[0]).toMatch(/network access to evil\.test is not allowed/);
    expect(explain('Error: connect ECONNREFUSED 127.0.0.1:5432')[0]).toMatch(/network access to 127\.0\.0\.1:5432 is not allowed/);
    // The proxy bridges inside the sandbox are not a denial.
    expect(explain('Error: connect ECONNREFUSED 127.0.0.1:3128')).toEqual([]);
  });

  it('names limits: memory, processes, wall clock', () => {
    expect(explain('tail: memory exhausted')).toEqual(['killed: memory limit 256 MB exceeded']);
    expect(explain('bash: fork: retry: Resource temporarily unavailable', { timedOut: true, timeoutMs: 4000 })).toEqual([
      'killed: process limit 64 exceeded (fork refused)',
      'killed: wall-clock limit 4s exceeded',
    ]);
  });

  it('reports nothing for a clean success', () => {
    expect(explain('all good', { exitCode: 0 })).toEqual([]);
  });
});
