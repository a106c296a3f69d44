import { spawnSync } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import type { Runtime } from '../../src/contracts/runtime.js';
import type { AnyTool, ToolContext, ToolResult } from '../../src/contracts/tool.js';
import type { AgentOutput, ToolCallContent } from '../../src/contracts/agent-output.js';

export interface Workspace {
  /** The session cwd (a real temp folder, symlinks resolved). */
  cwd: string;
  /** A sibling temp folder outside the workspace. */
  outside: string;
  runtime: Runtime;
  cleanup(): Promise<void>;
}

export async function createWorkspace(): Promise<Workspace> {
  const cwd = await realpath(await mkdtemp(path.join(os.tmpdir(), 'plaited-tools-ws-')));
  const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'plaited-tools-out-')));
  return {
    cwd,
    outside,
    runtime: createLocalRuntime(cwd),
    async cleanup() {
      await rm(cwd, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    },
  };
}

export interface RecordingContext extends ToolContext {
  updates: Array<{ title?: string; content?: ToolCallContent[] }>;
  events: AgentOutput[];
}

export function toolContext(
  runtime: Runtime,
  options: { allowedRoots?: string[]; signal?: AbortSignal } = {},
): RecordingContext {
  const updates: RecordingContext['updates'] = [];
  const events: AgentOutput[] = [];
  return {
    runtime,
    signal: options.signal ?? new AbortController().signal,
    sessionId: 'test-session',
    toolCallId: 'call-1',
    allowedRoots: options.allowedRoots ?? [],
    onUpdate: (update) => updates.push(update),
    emit: (event) => events.push(event),
    updates,
    events,
  };
}

/** Validates like the agent loop does, then executes; a validation failure fails the test. */
export async function runTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<ToolResult> {
  const checked = tool.validate(args);
  if (!checked.ok) throw new Error(`arguments rejected by ${tool.name}: ${checked.error}`);
  return tool.execute(checked.value, context);
}

export function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/** A marker unlikely to appear in any other process's command line. */
export function uniqueMarker(): string {
  return `${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

/**
 * Markers for the processes a test starts: `marker()` hands out a fresh one and remembers it,
 * `killMarked()` (for an afterEach) kills whatever still matches one, so a failing test leaves no
 * sleepers behind.
 */
export function markedProcesses(): { marker(): string; killMarked(): void } {
  const markers: string[] = [];
  return {
    marker() {
      const value = uniqueMarker();
      markers.push(value);
      return value;
    },
    killMarked() {
      for (const marker of markers.splice(0)) killMatching(marker);
    },
  };
}

/** PIDs of live processes whose command line contains `pattern` (pgrep -f). */
export function pgrep(pattern: string): number[] {
  const found = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  if (found.error) throw new Error(`pgrep is needed for this test but could not run: ${found.error.message}`);
  if (found.status !== 0 && found.status !== 1) throw new Error(`pgrep failed: ${found.stderr}`);
  return found.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

/** Waits until `count` processes match, so an abort really hits running children. */
export async function waitForProcesses(pattern: string, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (pgrep(pattern).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`processes matching ${pattern} never started`);
}

/** Kills leftovers so a failing test does not leave sleepers behind. */
export function killMatching(pattern: string): void {
  for (const pid of pgrep(pattern)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
