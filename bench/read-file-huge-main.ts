import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLocalRuntime } from '../src/tools/local-runtime.js';
import { readFileTool } from '../src/tools/read-file-tool.js';
import type { Runtime } from '../src/contracts/runtime.js';

/**
 * One process of the read_file bench (see read-file-huge.ts): three `read_file` calls in
 * parallel on `file`, through a runtime that reads windows (`window`, today) or only whole
 * files (`whole`, as before: a runtime without `readTextWindow`). Prints one JSON line.
 */
const [mode, file] = process.argv.slice(2) as ['window' | 'whole', string];
const local = createLocalRuntime(dirname(file));
const runtime: Runtime = mode === 'window' ? local : { cwd: local.cwd, kind: 'whole-file', readFile: local.readFile, writeFile: local.writeFile, exec: local.exec };
const context = {
  runtime,
  signal: new AbortController().signal,
  sessionId: 'bench',
  toolCallId: 'bench',
  allowedRoots: [],
  onUpdate: () => undefined,
  emit: () => undefined,
};
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const started = performance.now();
const results = await Promise.all([{ path: file }, { path: file, offset: 1_000_000, limit: 100 }, { path: file, offset: 4_000_000 }].map((args) => readFileTool.execute(args, context)));
const ms = performance.now() - started;
delay.disable();
const hwmKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
const answered = results.every((result) => !result.isError);
process.stdout.write(`${JSON.stringify({ ms: Math.round(ms), maxLoopDelayMs: Math.round(delay.max / 1e6), peakRssMb: Math.round(hwmKb / 1024), answered })}\n`);
