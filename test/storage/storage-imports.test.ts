import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const storage = join(root, 'src/storage');
/** Storage is below the core: it owns its record types (DESIGN.md), so nothing above it is imported. */
const above = ['src/agent', 'src/adapters', 'src/cli', 'src/config', 'src/context', 'src/mcp', 'src/model', 'src/tools', 'src/index.ts', 'src/default-agent.ts'];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative specifiers of `import … from`, `export … from`, `import '…'` and `import('…')`. */
function relativeImports(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((match) => match[1]!);
}

describe('src/storage dependencies', () => {
  it('finds the relative imports it checks', () => {
    expect(relativeImports(`import type { A } from '../agent/a.js';\nexport { B } from "./b.js";\nimport './c.js';\nconst d = await import('../d.js');`)).toEqual([
      '../agent/a.js',
      './b.js',
      './c.js',
      '../d.js',
    ]);
  });

  it('imports nothing from src/agent or any other layer above storage', () => {
    const files = sourceFiles(storage);
    expect(files.length).toBeGreaterThan(5);
    const violations = files.flatMap((file) =>
      relativeImports(readFileSync(file, 'utf8'))
        .map((specifier) => relative(root, resolve(dirname(file), specifier)))
        .filter((target) => above.some((layer) => target === layer.replace(/\.ts$/, '.js') || target.startsWith(`${layer}/`)))
        .map((target) => `${relative(root, file)} imports ${target}`),
    );
    expect(violations).toEqual([]);
  });
});
