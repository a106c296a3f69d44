import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentAdapter } from './agent-adapter.js';
import { protectLoadedFile } from '../tools/protected-paths.js';
import { importWithTranspileCache } from '../config/import-with-transpile-cache.js';
import { PlaitedError } from '../errors/plaited-error.js';

/** A custom adapter module that cannot be used; the message names the file and what is wrong. */
export class AdapterLoadError extends PlaitedError<'adapter_load_failed'> {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('adapter_load_failed', `adapter ${file}: ${message}`, options);
    this.name = 'AdapterLoadError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is AdapterLoadError {
    return PlaitedError.isInstance(error) && error.name === 'AdapterLoadError';
  }
}

/**
 * Loads `--adapter ./x.ts` (or .js/.mjs) through jiti, imported only here; its
 * `import … from 'plaited-agent'` resolves to the running package. The module's default export
 * must be `{ name: string, wrap(agent, options) }` (options: CustomAdapterOptions).
 */
export async function loadAdapter(spec: string, cwd: string, warn: (message: string) => void = () => undefined): Promise<AgentAdapter<unknown, unknown>> {
  if (!spec.includes('/') && !spec.includes('.')) {
    throw new AdapterLoadError(spec, 'unknown adapter name; built-ins are acp, mcp and sandbox (and a2a), or give a path like ./my-adapter.ts');
  }
  const file = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (!existsSync(file)) throw new AdapterLoadError(file, 'file not found');
  // Code that ran at start is the model's to read, never to write.
  protectLoadedFile(file);
  let loaded: unknown;
  try {
    // No default interop: a module without a default export must be reported as such, not have
    // its namespace stand in for one. `plaited-agent` is this running package wherever the file
    // lives (a folder with no node_modules too); jiti imports the package's ESM entry natively,
    // so the adapter shares its instances (PlaitedError.isInstance, the adapters).
    // Transpiled copies are kept where only the user writes (transpile-cache.ts).
    const jiti = { moduleCache: false, interopDefault: false, alias: { 'plaited-agent': packageEntry() } };
    loaded = await importWithTranspileCache(file, { jiti, warn });
  } catch (error) {
    throw new AdapterLoadError(file, `threw while loading: ${(error as Error).message}`, { cause: error });
  }
  const adapter = (loaded as { default?: unknown } | undefined)?.default;
  if (adapter === undefined) throw new AdapterLoadError(file, 'has no default export; export default { name, wrap(agent, config) }');
  if (typeof adapter !== 'object' || adapter === null) throw new AdapterLoadError(file, 'default export is not an object');
  const candidate = adapter as Partial<AgentAdapter<unknown, unknown>>;
  if (typeof candidate.name !== 'string' || candidate.name.length === 0) {
    throw new AdapterLoadError(file, 'default export needs a "name" string');
  }
  if (typeof candidate.wrap !== 'function') throw new AdapterLoadError(file, 'default export needs a "wrap(agent, config)" function');
  return candidate as AgentAdapter<unknown, unknown>;
}

/**
 * The package's entry as the running code sees it: library.js beside this file in the bundled CLI
 * (dist/bin, tools/bundle-cli.mjs), dist/src/index.js in tsc's build, src/index.ts when Bun runs the sources.
 */
function packageEntry(): string {
  const candidates = ['./library.js', '../index.js', '../index.ts'].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  return candidates.find((path) => existsSync(path)) ?? candidates[candidates.length - 1]!;
}
