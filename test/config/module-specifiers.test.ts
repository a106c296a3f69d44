import { describe, expect, it } from 'vitest';
import { moduleSpecifiers } from '../../src/config/module-specifiers.js';

describe('moduleSpecifiers (a config file read without running it)', () => {
  it('finds static, re-exported, dynamic-literal and require imports in TypeScript, skipping type-only ones', async () => {
    const source = [
      `import type { Foo } from './types';`,
      `import { a, type B } from './lib/a.js';`,
      `export * from './re';`,
      `export type { C } from './c-types';`,
      `const generic = <T,>(x: T): T => x;`,
      `const ratio = (x as number) / 2 / 3;`,
      `const lazy = await import('./lazy');`,
      `const old = require("./old.cjs");`,
      `import { createRequire } from 'node:module';`,
      `const load = createRequire(import.meta.url);`,
      `const dep = load('some-package');`,
      `export default { x: a satisfies unknown };`,
    ].join('\n');
    const found = await moduleSpecifiers(source);
    expect(found.computed).toEqual([]);
    expect(found.specifiers.sort()).toEqual(['./lazy', './lib/a.js', './old.cjs', './re', 'node:module', 'some-package'].sort());
  });

  it('reports every load whose target is computed, with its line', async () => {
    const source = [`const name = 'x';`, `await import(name);`, `require(dir + '/y');`, `createRequire(import.meta.url)('z');`].join('\n');
    const found = await moduleSpecifiers(source);
    expect(found.computed).toHaveLength(3);
    expect(found.computed[0]).toBe('line 2: import(name)');
    expect(found.computed.join('\n')).toContain("line 3: require(dir + '/y');");
    expect(found.computed.join('\n')).toContain('createRequire(...) whose result is not kept under a name');
  });
});
