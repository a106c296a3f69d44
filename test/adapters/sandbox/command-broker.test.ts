import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveCommandBroker } from '../../../src/adapters/sandbox/command-broker.js';
import { MAX_BROKER_LINE } from '../../../src/adapters/sandbox/broker-messages.js';
import { createPermissionRuleFile } from '../../../src/storage/permission-rule-file.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The launcher's half of the command broker takes every line from the sandboxed agent as
 * untrusted input: malformed, oversized or ill-shaped messages are reported and dropped, and
 * the broker keeps serving the valid ones (a real local runtime, a real rule file).
 */
function harness() {
  const project = mkdtempSync(join(tmpdir(), 'plaited-broker-unit-'));
  const configDir = mkdtempSync(join(tmpdir(), 'plaited-broker-unit-config-'));
  const toLauncher = new PassThrough();
  const toAgent = new PassThrough();
  const warnings: string[] = [];
  const replies: Array<Record<string, unknown>> = [];
  let pending = '';
  toAgent.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) replies.push(JSON.parse(line) as Record<string, unknown>);
  });
  const broker = serveCommandBroker({
    channel: Duplex.from({ readable: toLauncher, writable: toAgent }),
    runtimeFor: (cwd) => createLocalRuntime(cwd),
    rules: createPermissionRuleFile(configDir),
    warn: (message) => warnings.push(message),
    env: { PLAITED_MARKER: 'from-launcher' },
    // A plain child with three pipes (the launcher's real one adds the sandbox: test/e2e/whole-agent-mcp-broker.test.ts).
    spawn: async (argv, options, handlers) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env }, stdio: 'pipe' });
      child.stdout.on('data', handlers.onStdout);
      child.stderr.on('data', handlers.onStderr);
      child.once('close', (code, signal) => handlers.onExit(code, signal));
      return {
        write: (chunk) => child.stdin.write(chunk) || true,
        pauseOutput: () => child.stdout.pause(),
        resumeOutput: () => child.stdout.resume(),
        kill: () => child.kill('SIGTERM'),
      };
    },
  });
  const send = (line: string) => toLauncher.write(`${line}\n`);
  return { project, configDir, warnings, replies, broker, send };
}

describe('command broker (launcher side)', () => {
  it('drops bad lines with a warning and keeps serving: garbage, wrong shapes, relative paths, over-long lines', async () => {
    const { project, warnings, replies, broker, send } = harness();
    send('not json at all');
    send(JSON.stringify({ t: 'exec', id: 1, command: 'echo x', cwd: 'relative/dir' }));
    send(JSON.stringify({ t: 'exec', id: 2, command: 'echo x', cwd: project, extra: true }));
    send(JSON.stringify({ t: 'launch-missiles', id: 3 }));
    send(JSON.stringify({ t: 'exec', id: 4, command: 'echo x', cwd: project, env: { 'BAD NAME': 'x' } }));
    send(JSON.stringify({ t: 'rule', id: 5, op: 'add', project, entry: { rule: 'bash(x)', effect: 'maybe' } }));
    send(`{"t":"exec","id":6,"command":"${'a'.repeat(MAX_BROKER_LINE + 10)}","cwd":"${project}"}`);
    send('null');
    await waitFor(() => warnings.length === 8, 10_000, 'eight warnings');
    expect(warnings.join('\n')).toMatch(/not JSON/);
    expect(warnings.join('\n')).toMatch(/length limit/);
    expect(replies).toEqual([]);

    send(JSON.stringify({ t: 'exec', id: 7, command: 'echo "out $PLAITED_MARKER"; exit 3', cwd: project }));
    await waitFor(() => replies.some((reply) => reply.t === 'result'), 10_000, 'the result');
    const result = replies.find((reply) => reply.t === 'result') as { id: number; result: { output: string; exitCode: number } };
    expect(result.id).toBe(7);
    expect(result.result.output).toContain('out from-launcher');
    expect(result.result.exitCode).toBe(3);
    expect(replies.filter((reply) => reply.t === 'output').length).toBeGreaterThan(0);
    await broker.close();
  });

  it('aborts a running command on request, and kills what still runs when it closes', async () => {
    const { project, replies, broker, send } = harness();
    send(JSON.stringify({ t: 'exec', id: 1, command: 'echo started; sleep 600', cwd: project }));
    await waitFor(() => replies.some((reply) => reply.t === 'output'), 10_000, 'the first output');
    send(JSON.stringify({ t: 'abort', id: 1 }));
    await waitFor(() => replies.some((reply) => reply.t === 'result'), 10_000, 'the aborted result');
    expect((replies.find((reply) => reply.t === 'result') as { result: { exitCode: number | null } }).result.exitCode).not.toBe(0);

    const marker = `plaited-broker-unit-${process.pid}-${Date.now()}`;
    send(JSON.stringify({ t: 'exec', id: 2, command: `echo again; exec -a ${marker} sleep 600`, cwd: project }));
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status === 0, 10_000, 'the second command to run');
    await broker.close();
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status !== 0, 10_000, 'the second command to be gone');
  });

  it('writes and removes a valid rule in the rule file, and answers when it is done', async () => {
    const { project, configDir, replies, broker, send } = harness();
    const rules = createPermissionRuleFile(configDir);
    send(JSON.stringify({ t: 'rule', id: 1, op: 'add', project, entry: { rule: 'bash(echo ok)', effect: 'allow' } }));
    await waitFor(() => replies.some((reply) => reply.id === 1), 10_000, 'the answer');
    expect(replies).toContainEqual({ t: 'done', id: 1 });
    expect(JSON.parse(readFileSync(rules.location(project), 'utf8')).rules).toMatchObject([{ rule: 'bash(echo ok)', effect: 'allow' }]);
    send(JSON.stringify({ t: 'rule', id: 2, op: 'remove', project, entry: { rule: 'bash(echo ok)', effect: 'allow' } }));
    await waitFor(() => replies.some((reply) => reply.id === 2), 10_000, 'the second answer');
    expect(replies).toContainEqual({ t: 'done', id: 2, removed: true });
    expect(rules.list(project)).toEqual([]);
    await broker.close();
  });

  it('starts a program with its pipes: relays stdin (also before it has started), stdout and stderr apart, and its exit; refuses bad spawns', async () => {
    const { project, warnings, replies, broker, send } = harness();
    send(JSON.stringify({ t: 'spawn', id: 1, argv: ['cat'], cwd: 'relative' }));
    send(JSON.stringify({ t: 'spawn', id: 2, argv: [], cwd: project }));
    send(JSON.stringify({ t: 'stdin', id: 77, data: Buffer.from('x').toString('base64') }));
    await waitFor(() => warnings.length === 3, 10_000, 'three warnings');
    expect(warnings[2]).toMatch(/no program 77/);

    const script = 'read line; echo "got $line"; echo "err $PLAITED_MARKER $CFG" >&2; sleep 600';
    send(JSON.stringify({ t: 'spawn', id: 3, argv: ['bash', '-c', script], cwd: project, env: { CFG: 'cfg' } }));
    send(JSON.stringify({ t: 'stdin', id: 3, data: Buffer.from('hello\n').toString('base64') }));
    const text = (stream?: 'stderr') =>
      replies
        .filter((reply) => reply.t === 'output' && reply.id === 3 && reply.stream === stream)
        .map((reply) => Buffer.from(reply.data as string, 'base64').toString())
        .join('');
    await waitFor(() => text().includes('got hello') && text('stderr').includes('err'), 10_000, 'stdout and stderr');
    expect(text()).not.toContain('err');
    expect(text('stderr')).toContain('err from-launcher cfg');
    send(JSON.stringify({ t: 'abort', id: 3 }));
    await waitFor(() => replies.some((reply) => reply.t === 'exit'), 10_000, 'the exit');
    expect(replies.find((reply) => reply.t === 'exit')).toEqual({ t: 'exit', id: 3, code: null, signal: 'SIGTERM' });
    await broker.close();
  });

  it("waits with a program's output while the agent does not read it, and relays all of it once it does", async () => {
    const project = mkdtempSync(join(tmpdir(), 'plaited-broker-unit-'));
    const toLauncher = new PassThrough();
    const toAgent = new PassThrough();
    let paused = 0;
    const broker = serveCommandBroker({
      channel: Duplex.from({ readable: toLauncher, writable: toAgent }),
      runtimeFor: (cwd) => createLocalRuntime(cwd),
      rules: createPermissionRuleFile(mkdtempSync(join(tmpdir(), 'plaited-broker-unit-config-'))),
      warn: () => undefined,
      spawn: async (argv, options, handlers) => {
        const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, stdio: 'pipe' });
        child.stdout.on('data', handlers.onStdout);
        child.once('close', (code, signal) => handlers.onExit(code, signal));
        return {
          write: () => true,
          pauseOutput: () => (paused++, child.stdout.pause()),
          resumeOutput: () => child.stdout.resume(),
          kill: () => child.kill('SIGTERM'),
        };
      },
    });
    const total = 8 * 1024 * 1024;
    toLauncher.write(`${JSON.stringify({ t: 'spawn', id: 1, argv: ['head', '-c', String(total), '/dev/zero'], cwd: project })}\n`);
    await waitFor(() => paused > 0, 10_000, 'the output to be paused');
    // Held back: what waits for the agent is a small part of the 8 MB.
    expect(toAgent.readableLength + toAgent.writableLength).toBeLessThan(total / 4);

    let received = 0;
    let exited = false;
    let pending = '';
    toAgent.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const reply = JSON.parse(line) as { t: string; data?: string };
        if (reply.t === 'output') received += Buffer.from(reply.data!, 'base64').length;
        if (reply.t === 'exit') exited = true;
      }
    });
    await waitFor(() => exited, 20_000, 'the exit');
    expect(received).toBe(total);
    await broker.close();
  });
});
