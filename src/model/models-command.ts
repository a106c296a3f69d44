import { LocalModelError } from './local-model-error.js';
import { createDownloadProgressReporter } from './download-progress.js';
import { defaultModelCacheDir, listCachedModels, resolveModelFile } from './model-files.js';

const USAGE = `Usage:
  plaited-agent models pull SPEC [--cache-dir DIR] [--connect-timeout MS] [--read-timeout MS]
      download a model once (SPEC: hf:ORG/REPO[:QUANT], a URL, or llama-cpp:SPEC); gives up when the
      host does not answer within the connect timeout (30000) or sends nothing for the read timeout (60000)
  plaited-agent models list [--cache-dir DIR] [--json]   show the cached GGUF files
`;

export interface ModelsCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `plaited-agent models pull|list`. Results go to stdout, progress and errors to stderr;
 * the return value is the exit code (0 ok, 1 failed, 2 bad usage).
 */
export async function runModelsCommand(argv: string[], io: ModelsCommandIo): Promise<number> {
  const args = [...argv];
  let cacheDir: string | undefined;
  let json = false;
  const timeouts: { connectTimeoutMs?: number; readTimeoutMs?: number } = {};
  const positional: string[] = [];
  while (args.length > 0) {
    const arg = args.shift()!;
    if (arg === '--cache-dir') {
      cacheDir = args.shift();
      if (!cacheDir) return usageError(io, '--cache-dir needs a folder');
    } else if (arg.startsWith('--cache-dir=')) cacheDir = arg.slice('--cache-dir='.length);
    else if (arg === '--json') json = true;
    else if (arg === '--connect-timeout' || arg === '--read-timeout') {
      const ms = Number(args.shift());
      if (!Number.isInteger(ms) || ms <= 0) return usageError(io, `${arg} needs a positive number of milliseconds`);
      timeouts[arg === '--connect-timeout' ? 'connectTimeoutMs' : 'readTimeoutMs'] = ms;
    }
    else if (arg === '--help' || arg === '-h') {
      io.stdout.write(USAGE);
      return 0;
    } else if (arg.startsWith('-')) return usageError(io, `unknown option ${arg}`);
    else positional.push(arg);
  }
  const [sub, ...rest] = positional;
  const dir = cacheDir ?? defaultModelCacheDir();

  if (sub === undefined || sub === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  if (sub === 'list') {
    if (rest.length > 0) return usageError(io, `"models list" takes no arguments`);
    const models = await listCachedModels({ cacheDir: dir });
    if (json) {
      io.stdout.write(`${JSON.stringify({ cacheDir: dir, models: models.map((m) => ({ ...m, modifiedAt: m.modifiedAt.toISOString() })) }, null, 2)}\n`);
    } else if (models.length === 0) {
      io.stdout.write(`No models cached in ${dir}\n`);
    } else {
      io.stdout.write(`Models in ${dir}:\n`);
      for (const m of models) io.stdout.write(`${(m.bytes / 1_000_000).toFixed(1).padStart(9)} MB  ${m.file}\n`);
    }
    return 0;
  }
  if (sub === 'pull') {
    if (rest.length !== 1) return usageError(io, '"models pull" needs exactly one SPEC');
    const spec = rest[0].replace(/^llama-cpp:/, '');
    io.stderr.write(`Fetching ${spec} into ${dir}\n`);
    try {
      const path = await resolveModelFile(spec, {
        ...timeouts,
        cacheDir: dir,
        onProgress: createDownloadProgressReporter(io.stderr, `Downloading ${spec}`),
      });
      io.stdout.write(`${path}\n`);
      return 0;
    } catch (error) {
      io.stderr.write(`${LocalModelError.isInstance(error) ? error.message : String(error)}\n`);
      return 1;
    }
  }
  return usageError(io, `unknown subcommand "${sub}"`);
}

function usageError(io: ModelsCommandIo, message: string): number {
  io.stderr.write(`models: ${message}\n${USAGE}`);
  return 2;
}
