import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KNOWN_VARIABLES, mistypedVariables } from '../../src/cli/mistyped-variables.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('mistyped PLAITED_ variables', () => {
  it('knows every variable the code reads, so none of them is ever taken for a typo', () => {
    // The list's own file names typos as examples.
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'bin'))].filter((file) => !file.endsWith('mistyped-variables.ts'));
    const read = new Set(files.flatMap((file) => readFileSync(file, 'utf8').match(/PLAITED_[A-Z0-9_]*[A-Z0-9]/g) ?? []));
    expect([...read].filter((name) => !KNOWN_VARIABLES.includes(name)).sort()).toEqual([]);
    expect(mistypedVariables(Object.fromEntries(KNOWN_VARIABLES.map((name) => [name, '1'])))).toEqual([]);
  });

  it('names a typo with the variable meant, unless that one is set too', () => {
    expect(mistypedVariables({ PLAITED_STOR: 'x' })).toEqual(['PLAITED_STOR is not a variable plaited-agent reads (it is ignored): did you mean PLAITED_STORE?']);
    expect(mistypedVariables({ PLAITED_STOR: 'x', PLAITED_STORE: 'y' })).toEqual([]);
    expect(mistypedVariables({ PATH: '/bin', PLAITED_TEST_CHAT_MODEL: 'm', HOME: '/root' })).toEqual([]);
  });
});
