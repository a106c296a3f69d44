import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import type { Runtime } from '../../../src/contracts/runtime.js';
import { createSandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { createSandboxedRuntime } from '../../../src/adapters/sandbox/sandboxed-runtime.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { BackgroundProcesses } from '../../../src/tools/background-processes.js';
import { FIXTURE_KEY, createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Streaming output and background commands go through the same walls as any sandboxed command. */
let world: SandboxWorld;
let runtime: Runtime;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat', 'curl');
  world = await createSandboxWorld();
  const policy = createSandboxPolicy({
    config: sandboxSchema.parse({ commands: true, limits: { timeoutMs: 20_000 } }),
    cwd: world.project,
    home: world.home,
  });
  runtime = createSandboxedRuntime(createLocalRuntime(world.project), policy, { mode: 'isolated' });
});

afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

describe('sandboxed runtime: streamed output and background commands', () => {
  it('passes output through onOutput as it arrives', async () => {
    const chunks: string[] = [];
    const result = await runtime.exec("printf 'one\\n'; sleep 0.2; printf 'two\\n'", { env: { HOME: world.home }, onOutput: (chunk) => chunks.push(Buffer.from(chunk).toString('utf8')) });
    expect(result.exitCode).toBe(0);
    expect(chunks.join('')).toContain('one\ntwo\n');
  });

  it('a background command runs inside the sandbox: the SSH key stays unreadable', async () => {
    const background = new BackgroundProcesses({ publish: () => undefined });
    try {
      const id = background.start({ sessionId: 's', command: `cat ${world.sshKeyPath}; echo after-cat`, runtime, cwd: world.project });
      await waitFor(() => background.list('s').some((entry) => !entry.running), 20_000, 'the background command to end');
      const snapshot = background.read('s', id)!;
      expect(snapshot.running).toBe(false);
      expect(snapshot.output).toContain('after-cat');
      expect(snapshot.output).not.toContain(FIXTURE_KEY.trim().split('\n')[1]);
    } finally {
      await background.stopAll();
    }
  });
});
