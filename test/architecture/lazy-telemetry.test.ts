import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'es-module-lexer';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('OpenTelemetry loads lazily', () => {
  it('only start-telemetry.ts imports @opentelemetry/* statically, and nothing imports it statically: off, nothing loads at cold start', async () => {
    await init;
    const static_: string[] = [];
    for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'bin'))]) {
      const [imports] = parse(readFileSync(file, 'utf8').replace(/\bimport type\b[^;]*;/g, ''));
      for (const imported of imports) {
        if (imported.d !== -1 || !imported.n) continue;
        const otel = imported.n.startsWith('@opentelemetry/') && !file.endsWith('start-telemetry.ts');
        if (otel || imported.n.endsWith('/start-telemetry.js') || imported.n === './start-telemetry.js') static_.push(`${relative(root, file)} → ${imported.n}`);
      }
    }
    expect(static_).toEqual([]);
  });
});
