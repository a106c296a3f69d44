import { join } from 'node:path';
import { closestName } from '../config/closest-name.js';
import { errorMessage } from '../errors/error-message.js';
import { unknownOption } from '../config/unknown-option.js';
import { LocalModelError } from './local-model-error.js';
import { checkModelSpec } from './check-model-spec.js';
import { ModelError } from './model-error.js';
import { createDownloadProgressReporter } from './download-progress.js';
import { defaultModelCacheDir, listCachedModels, resolveModelFile } from './model-files.js';
import type { ConfiguredModel, EndpointModels } from './list-endpoint-models.js';

const USAGE = `Usage:
  plaited-agent models pull SPEC [--cache-dir DIR] [--connect-timeout MS] [--read-timeout MS]
      download a model once (SPEC: hf:ORG/REPO[:QUANT], a URL, or llama-cpp:SPEC); gives up when the
      host does not answer within the connect timeout (30000) or sends nothing for the read timeout (60000)
  plaited-agent models list [--cache-dir DIR] [--model SPEC] [--base-url URL] [--json]
      show the cached GGUF files, and the models each configured provider's endpoint offers
      (agent.model, or --model, and agent.models), the configured ones marked *
`;

export interface ModelsCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `plaited-agent models pull|list`. Results go to stdout, progress and errors to stderr;
 * the return value is the exit code (0 ok, 1 failed, 2 bad usage).
 */
export async function runModelsCommand(argv: string[], io: ModelsCommandIo, options: { configured?: ConfiguredModel[] } = {}): Promise<number> {
  const args = [...argv];
  const configured = [...(options.configured ?? [])];
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
    else if (arg === '--model' || arg === '--base-url') {
      const value = args.shift();
      if (!value) return usageError(io, `${arg} needs a value`);
      // The flags stand for agent.model and agent.baseURL: they replace the configured default (the first entry).
      const first = configured[0]?.default ? configured.shift()! : { spec: '', default: true };
      configured.unshift(arg === '--model' ? { ...first, spec: value } : { ...first, baseURL: value });
    }
    else if (arg === '--connect-timeout' || arg === '--read-timeout') {
      const ms = Number(args.shift());
      if (!Number.isInteger(ms) || ms <= 0) return usageError(io, `${arg} needs a positive number of milliseconds`);
      timeouts[arg === '--connect-timeout' ? 'connectTimeoutMs' : 'readTimeoutMs'] = ms;
    }
    else if (arg === '--help' || arg === '-h') {
      io.stdout.write(USAGE);
      return 0;
    } else if (arg.startsWith('-')) return usageError(io, unknownOption(arg, FLAGS, 'plaited-agent models --help'));
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
    let models;
    try {
      models = await listCachedModels({ cacheDir: dir, onUnreadable: (file, error) => io.stderr.write(`skipped ${join(dir, file)}: ${errorMessage(error)}\n`) });
    } catch (error) {
      if (!LocalModelError.isInstance(error)) throw error;
      io.stderr.write(`${error.message}\n`);
      return 1;
    }
    const asked = configured.filter((model) => model.spec !== '');
    const problem = specProblem(asked.filter((model) => model.default));
    if (problem !== undefined) return usageError(io, problem);
    const endpoints = asked.length > 0 ? await (await import('./list-endpoint-models.js')).listEndpointModels(asked) : [];
    if (json) {
      const cached = models.map((m) => ({ ...m, modifiedAt: m.modifiedAt.toISOString() }));
      io.stdout.write(`${JSON.stringify({ cacheDir: dir, models: cached, ...(endpoints.length > 0 ? { endpoints } : {}) }, null, 2)}\n`);
    } else if (models.length === 0) {
      io.stdout.write(`No models cached in ${dir}\n`);
    } else {
      io.stdout.write(`Models in ${dir}:\n`);
      for (const m of models) io.stdout.write(`${(m.bytes / 1_000_000).toFixed(1).padStart(9)} MB  ${m.file}\n`);
    }
    if (!json) writeEndpoints(io, endpoints);
    return endpoints.some((endpoint) => endpoint.error) ? 1 : 0;
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
  const meant = closestName(sub, ['list', 'pull']);
  return usageError(io, `unknown subcommand "${sub}"${meant ? `: did you mean plaited-agent models ${meant}?` : ''}`);
}

/** What is wrong with the model to list (agent.model or --model: a provider that does not exist, a generic one without a URL), as the start says it. */
function specProblem(models: readonly ConfiguredModel[]): string | undefined {
  for (const model of models) {
    try {
      checkModelSpec({ agent: { model: model.spec, ...(model.baseURL ? { baseURL: model.baseURL } : {}) } } as Parameters<typeof checkModelSpec>[0]);
    } catch (error) {
      if (ModelError.isInstance(error)) return error.message;
      throw error;
    }
  }
  return undefined;
}

const FLAGS = ['cache-dir', 'json', 'model', 'base-url', 'connect-timeout', 'read-timeout', 'help'];


function writeEndpoints(io: ModelsCommandIo, endpoints: readonly EndpointModels[]): void {
  for (const endpoint of endpoints) {
    io.stdout.write(`\n${endpoint.provider}: ${endpoint.url}\n`);
    if (endpoint.error) io.stderr.write(`models: ${endpoint.provider}: ${endpoint.error}\n`);
    for (const model of endpoint.models) io.stdout.write(`${model.configured ? '  * ' : '    '}${endpoint.provider}:${model.id}\n`);
  }
}

function usageError(io: ModelsCommandIo, message: string): number {
  io.stderr.write(`plaited-agent models: ${message}\n\n${USAGE}`);
  return 2;
}
