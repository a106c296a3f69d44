import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createSandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { createSandboxedRuntime } from '../../../src/adapters/sandbox/sandboxed-runtime.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import { createProtectedLayer } from '../../../src/tools/protected-layer.js';
import type { Runtime } from '../../../src/contracts/runtime.js';
import { waitFor } from '../../helpers/wait-for.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

/**
 * Your own git saves `.git/config` by writing a lock file and renaming it over the file. The kernel
 * drops a mount whose mount point is renamed over in another namespace, so a command running at
 * that moment no longer has `.git/config` read-only: it could write a hook your next git command
 * runs (README "Sandbox", the limit). With `security.readOnlyGit` the whole `.git` is the mount
 * point, and a save inside it lifts nothing: the command still cannot write the new file.
 */

let world: SandboxWorld;
beforeAll(async () => {
  requirePrograms('bwrap', 'socat', 'git');
  world = await createSandboxWorld();
  execFileSync('git', ['init', '-q', world.project]);
});
afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

/** A command that waits while the host's git saves the config, then tries to add a hook path to it. */
async function writeAfterSave(runtime: Runtime): Promise<string> {
  // In the project: the one place both the host and a sandboxed command see and write.
  const signals = mkdtempSync(join(world.project, 'output', 'git-save-'));
  const [ready, go] = [join(signals, 'ready'), join(signals, 'go')];
  const command = `touch '${ready}'; while [ ! -e '${go}' ]; do sleep 0.02; done; if { printf '[core]\\n\\thooksPath = /tmp/planted\\n' >> .git/config; } 2>/dev/null; then echo WROTE; else echo REFUSED; fi`;
  const running = runtime.exec(command, { env: { HOME: world.home }, timeoutMs: 60_000 });
  await waitFor(() => existsSync(ready), 30_000, 'the command to start');
  const before = execFileSync('git', ['-C', world.project, 'config', '--list', '--local'], { encoding: 'utf8' });
  // The host's save: git writes config.lock and renames it over config.
  execFileSync('git', ['-C', world.project, 'config', 'user.name', `saved while a command ran ${Date.now()}`]);
  expect(execFileSync('git', ['-C', world.project, 'config', '--list', '--local'], { encoding: 'utf8' })).not.toBe(before);
  writeFileSync(go, '');
  const result = await running;
  return result.output.trim();
}

describe('security.readOnlyGit: a save of .git/config while a command runs lifts nothing', () => {
  it('under the read-only layer (commands without the sandbox)', async () => {
    const { layer, reason } = createProtectedLayer({ wholeGitDirs: true });
    expect(reason).toBeNull();
    expect(await writeAfterSave(createLocalRuntime(world.project, { layer }))).toBe('REFUSED');
    expect(readFileSync(join(world.project, '.git', 'config'), 'utf8')).not.toContain('planted');
  }, 60_000);

  it('under the per-command sandbox with the project writable', async () => {
    const config = sandboxSchema.parse({ commands: true, security: { readOnlyGit: true } });
    const policy = createSandboxPolicy({ config, cwd: world.project, home: world.home, allowEdits: true });
    expect(policy.denyWrite).toContain(join(world.project, '.git'));
    const runtime = createSandboxedRuntime(createLocalRuntime(world.project), policy, { mode: 'isolated' });
    expect(await writeAfterSave(runtime)).toBe('REFUSED');
    expect(readFileSync(join(world.project, '.git', 'config'), 'utf8')).not.toContain('planted');
  }, 60_000);
});
