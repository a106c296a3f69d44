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
