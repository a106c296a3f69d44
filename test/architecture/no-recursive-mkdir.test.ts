import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('folders are made by ensureFolder', () => {
  it("no source calls Node's recursive mkdir, which spins for ever under /proc (storage/ensure-folder.ts says why)", () => {
    const calls: string[] = [];
    for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'bin'))]) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bmkdir(?:Sync)?\s*\(([^;]*?)\)\s*;/g)) {
        if (/recursive\s*:/.test(match[1]!)) calls.push(`${relative(root, file)}: ${match[0]}`);
      }
    }
    expect(calls).toEqual([]);
  });
});
