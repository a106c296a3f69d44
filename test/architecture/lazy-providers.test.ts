import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'es-module-lexer';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LAZY = ['@ai-sdk/anthropic', '@ai-sdk/openai', '@ai-sdk/google', '@ai-sdk/openai-compatible', './create-provider-model.js'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('model providers load lazily', () => {
  it('no file imports a provider package (or the module that does) statically: cold start does not load them', async () => {
    await init;
    const static_: string[] = [];
    for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'bin'))]) {
      const [imports] = parse(readFileSync(file, 'utf8').replace(/\bimport type\b[^;]*;/g, ''));
      for (const imported of imports) {
        // d === -1: a static import (-2 is import.meta, >= 0 a dynamic import()).
        if (imported.d === -1 && imported.n && LAZY.includes(imported.n) && !file.endsWith('create-provider-model.ts')) {
          static_.push(`${relative(root, file)} → ${imported.n}`);
        }
      }
    }
    expect(static_).toEqual([]);
  });
});
