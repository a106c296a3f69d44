import path from 'node:path';
import type { ProtectedLayer } from './protected-layer.js';
import type { ExecOptions, ExecResult, Runtime } from '../contracts/runtime.js';
import { toolEnvironment } from './secret-env.js';
import { spawnProcess } from './spawn-process.js';
import { readTextWindow } from './read-text-window.js';
import { FileTooLargeError } from './file-too-large-error.js';
import { openRegularFile } from './open-regular-file.js';
import { ensureFolderAsync } from '../storage/ensure-folder.js';

/** Whole-file reads stop here: a 300 MB file read whole held the process at gigabytes (read_file reads windows instead). */
export const READ_WHOLE_FILE_MAX_BYTES = 32 * 1024 * 1024;

export interface LocalRuntimeOptions {
  /** The read-only layer around each command (protected-layer.ts); none: commands run bare. */
  layer?: ProtectedLayer | null;
  /** The session's other workspace roots, protected like the cwd. */
  roots?: readonly string[];
}

/**
 * The default Runtime: the local disk and `bash -c`. Commands run in their own
 * process group, so a timeout or an abort kills everything they started, and
 * without the agent's secrets in their environment; with a `layer`, under it.
 */
export function createLocalRuntime(cwd: string, runtimeOptions: LocalRuntimeOptions = {}): Runtime {
  const root = path.resolve(cwd);
  const layer = runtimeOptions.layer ?? null;
  return {
    cwd: root,
    kind: 'local',
    async readFile(file, options) {
      const handle = await openRegularFile(path.resolve(root, file), 'read');
      try {
        const { size } = await handle.stat();
        if (size > READ_WHOLE_FILE_MAX_BYTES) throw new FileTooLargeError({ path: file, size, limit: READ_WHOLE_FILE_MAX_BYTES });
        return await handle.readFile({ encoding: 'utf8', signal: options?.signal });
      } finally {
        await handle.close();
      }
    },
    readTextWindow(file, options) {
      return readTextWindow(path.resolve(root, file), options);
    },
    async writeFile(file, content, options) {
      const target = path.resolve(root, file);
      await ensureFolderAsync(path.dirname(target));
      const handle = await openRegularFile(target, 'write');
      try {
        await handle.writeFile(content, { encoding: 'utf8', signal: options?.signal });
      } finally {
        await handle.close();
      }
    },
    async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
      const layered = layer && !options.isolated ? await layer.wrap(command, { roots: [root, ...(runtimeOptions.roots ?? [])], parentIsAgent: true }) : null;
      const result = await spawnProcess({
        file: 'bash',
        // One pipe for both streams keeps their order, as a terminal shows it; two pipes
        // would race. Same line as the command, so bash's error line numbers stay right.
        args: ['-c', `exec 2>&1; ${layered ? layered.line : command}`],
        cwd: options.cwd ? path.resolve(root, options.cwd) : root,
        env: { ...toolEnvironment(process.env, { passthrough: options.passEnv, explicit: options.env }), ...layered?.env },
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        maxOutputBytes: options.maxOutputBytes,
        keep: 'tail',
        onOutput: options.onOutput,
      }).finally(() => layered?.release());
      return {
        output: result.output,
        exitCode: result.exitCode,
        signal: result.signal,
        truncated: result.truncated,
        timedOut: result.timedOut,
      };
    },
  };
}
