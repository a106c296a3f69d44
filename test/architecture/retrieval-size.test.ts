import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RETRIEVAL = fileURLToPath(new URL('../../src/retrieval', import.meta.url));
/** Issue 23: the product carries only what ships; the retrieval experiments live in bench/. */
const MAX_LINES = 1_900;

describe('src/retrieval', () => {
  it(`stays within ${MAX_LINES} lines (its experiments live in bench/)`, () => {
    const files = readdirSync(RETRIEVAL, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    const lines = files.reduce((sum, name) => sum + readFileSync(join(RETRIEVAL, name), 'utf8').split('\n').length, 0);
    expect(files.length).toBeGreaterThan(0);
    expect(lines).toBeLessThanOrEqual(MAX_LINES);
  });
});
