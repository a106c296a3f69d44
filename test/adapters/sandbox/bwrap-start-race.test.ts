import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createSandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { createSandboxedRuntime } from '../../../src/adapters/sandbox/sandboxed-runtime.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import { createProtectedLayer } from '../../../src/tools/protected-layer.js';
import type { Runtime } from '../../../src/contracts/runtime.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

/**
 * An editor saves a file by writing a copy and renaming it over the file. The protected files a
 * project holds in writable folders (its config, `.npmrc`, `.mcp.json`, …) are bound read-only one by
 * one, and a rename between bubblewrap's bind and its read-only remount failed the command's start.
 * Here a loop renames fresh copies over six of them while commands start, through both the read-only
 * layer (commands without the sandbox) and the per-command sandbox with the project writable: on the
 * code before the retry about one start in six failed; now every command runs.
 */

const SAVED = ['.plaited/config.json', '.npmrc', '.mcp.json', '.envrc', '.bashrc', '.pre-commit-config.yaml'];

let world: SandboxWorld;
let saver: ChildProcess | undefined;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  world = await createSandboxWorld();
  mkdirSync(join(world.project, '.plaited'));
  for (const name of SAVED) writeFileSync(join(world.project, name), '{}\n');
  // The "editor": saves every file by a rename, as fast as it can, until killed.
  const files = SAVED.map((name) => join(world.project, name));
  const script = `const fs = require('node:fs'); const files = ${JSON.stringify(files)}; let round = 0;
for (;;) { for (const file of files) { fs.writeFileSync(file + '.saving', '{}\\n'); fs.renameSync(file + '.saving', file); } if (round++ === 0) process.stdout.write('saving\\n'); }`;
  saver = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [first] = (await once(saver.stdout!, 'data')) as [Buffer];
  expect(first.toString()).toBe('saving\n');
});

afterAll(async () => {
  if (saver?.pid && saver.exitCode === null) {
    saver.kill('SIGKILL');
    await once(saver, 'exit');
  }
  await resetSandboxRuntime();
  await world?.close();
});

async function startMany(runtime: Runtime, starts: number): Promise<string[]> {
  const failures: string[] = [];
  for (let start = 0; start < starts; start++) {
    const result = await runtime.exec('echo ran', { env: { HOME: world.home }, timeoutMs: 20_000 });
    if (result.exitCode !== 0 || result.output.trim() !== 'ran') failures.push(`exit ${result.exitCode}: ${result.output.trim()}`);
  }
  return failures;
}

describe('a command starts while an editor saves a protected file by a rename', () => {
  it('under the read-only layer: every start succeeds', async () => {
    const { layer, reason } = createProtectedLayer();
    expect(reason).toBeNull();
    const runtime = createLocalRuntime(world.project, { layer });
    expect(await startMany(runtime, 40)).toEqual([]);
  });

  it('under the per-command sandbox with the project writable: every start succeeds', async () => {
    const policy = createSandboxPolicy({ config: sandboxSchema.parse({ commands: true }), cwd: world.project, home: world.home, allowEdits: true });
    expect(policy.denyWrite).toContain(join(world.project, '.npmrc'));
    const runtime = createSandboxedRuntime(createLocalRuntime(world.project), policy, { mode: 'isolated' });
    // A start costs more here (proxy bridges, seccomp): fewer of them, still several failed before.
    expect(await startMany(runtime, 20)).toEqual([]);
  });
});
