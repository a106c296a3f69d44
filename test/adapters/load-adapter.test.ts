import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AdapterLoadError, loadAdapter } from '../../src/adapters/load-adapter.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, 'test/fixtures/adapters');

describe('loadAdapter', () => {
  it('loads TypeScript adapters through jiti, relative to the cwd', async () => {
    const adapter = await loadAdapter('./examples/http-sse-adapter.ts', root);
    expect(adapter.name).toBe('http-sse');
    expect(typeof adapter.wrap).toBe('function');
    expect((await loadAdapter(join(root, 'examples/repl-adapter.ts'), '/')).name).toBe('repl');
  });

  it('a transpiled copy that cannot be read (a folder in its place) is moved aside with a warning, and the adapter loads', async () => {
    const home = mkdtempSync(join(tmpdir(), 'plaited-adapter-cache-'));
    const before = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = home;
    try {
      const file = join(root, 'examples/repl-adapter.ts');
      await loadAdapter(file, '/');
      // The module's own folder of copies (a hash of its path); its `source` file names the module.
      const [folder] = readdirSync(join(home, 'plaited-agent', 'transpiled'));
      const cache = join(home, 'plaited-agent', 'transpiled', folder!);
      const copies = readdirSync(cache).filter((name) => name !== 'source');
      for (const copy of copies) {
        rmSync(join(cache, copy));
        mkdirSync(join(cache, copy));
      }
      const warnings: string[] = [];
      expect((await loadAdapter(file, '/', (message) => warnings.push(message))).name).toBe('repl');
      expect(warnings).toEqual([expect.stringMatching(new RegExp(`^a transpiled copy of ${file} in ${cache} could not be read \\(EISDIR.*\\): moved .* aside \\(\\.damaged\\)$`))]);
      expect(readdirSync(cache).filter((name) => name.endsWith('.damaged')).length).toBe(copies.length);
    } finally {
      if (before === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = before;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('loads JavaScript modules with import()', async () => {
    const adapter = await loadAdapter(join(fixtures, 'plain-adapter.mjs'), root);
    expect(adapter.name).toBe('plain');
  });

  it('fails with a typed error naming the file and the fault', async () => {
    const file = join(fixtures, 'broken/wrong-shape.ts');
    const error = await loadAdapter(file, root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdapterLoadError);
    expect(error).toMatchObject({ code: 'adapter_load_failed', file });
    expect((error as Error).message).toBe(`adapter ${file}: default export needs a "wrap(agent, config)" function`);
    const thrown = (await loadAdapter(join(fixtures, 'broken/throws.ts'), root).catch((caught: unknown) => caught)) as AdapterLoadError;
    expect(thrown.cause).toBeInstanceOf(Error);
    expect((thrown.cause as Error).message).toBe('adapter fixture exploded on purpose');
  });

  it('an unknown bare name is not looked up on disk', async () => {
    await expect(loadAdapter('grpc', root)).rejects.toThrow(/unknown adapter name; built-ins are acp, mcp and sandbox/);
  });
});
