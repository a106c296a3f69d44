import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's "Use it as a library" section, taken from the README itself: every ts block is
// compiled (strict, NodeNext) as a consumer's module against the built package's declarations.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = join(root, 'node_modules/typescript/bin/tsc');

function librarySection(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Use it as a library\n');
  if (start < 0) throw new Error('the README lost its "Use it as a library" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('the README library section', () => {
  it('has code blocks for the preset and the core, serving the faces and a custom adapter, and they type-check', () => {
    if (!existsSync(join(root, 'dist/src/index.d.ts'))) throw new Error('dist is missing: run `npx tsc -p tsconfig.json` first');
    const blocks = librarySection();
    expect(blocks.length).toBe(3);
    expect(blocks.join('\n')).toMatch(/createDefaultAgent[\s\S]*defineTool/);
    // The bare core is shown built from values, not from a config.
    expect(blocks.join('\n')).toMatch(/createAgent\(\{ model\b/);
    for (const name of ['acpAdapter', 'mcpAdapter', 'a2aAdapter', 'sandboxAdapter', 'CustomAdapterOptions']) expect(blocks.join('\n')).toContain(name);

    const work = mkdtempSync(join(tmpdir(), 'plaited-readme-lib-'));
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'readme-consumer', private: true, type: 'module' }));
    mkdirSync(join(work, 'node_modules'));
    // The package as a consumer resolves it (its exports and types), and the packages the blocks import.
    symlinkSync(root, join(work, 'node_modules/plaited-agent'), 'dir');
    symlinkSync(join(root, 'node_modules/zod'), join(work, 'node_modules/zod'), 'dir');
    mkdirSync(join(work, 'node_modules/@ai-sdk'));
    symlinkSync(join(root, 'node_modules/@ai-sdk/openai'), join(work, 'node_modules/@ai-sdk/openai'), 'dir');
    const files = blocks.map((code, index) => {
      const file = `block-${index + 1}.ts`;
      writeFileSync(join(work, file), code);
      return file;
    });
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files,
      }),
    );
    const compile = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8', timeout: 300_000 });
    expect(compile.status, `${compile.stdout}\n${compile.stderr}`).toBe(0);
  }, 300_000);
});
