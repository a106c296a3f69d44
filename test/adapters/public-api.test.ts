import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = join(root, 'dist/src/index.js');
const REGISTER = join(root, 'test/fixtures/adapters/import-log/register.mjs');

describe('the public entry (src/index.ts)', () => {
  it('exports the API adapters and configs are written against, and loads no protocol SDK or native module', () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npx tsc -p tsconfig.json\` first`);
    const log = join(mkdtempSync(join(tmpdir(), 'plaited-imports-')), 'imports.log');
    const script = `const api = await import(${JSON.stringify(ENTRY)}); console.log(JSON.stringify(Object.keys(api).sort()));`;
    const run = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, PLAITED_IMPORT_LOG: log },
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const exported = JSON.parse(run.stdout.trim()) as string[];
    expect(exported).toEqual(expect.arrayContaining(['createAgent', 'createDefaultAgent', 'defineConfig', 'defineTool', 'textResult', 'AdapterLoadError']));
    const loaded = readFileSync(log, 'utf8').split('\n');
    expect(loaded, 'the import log recorded nothing: the resolve hook did not run').toContain('./agent/create-agent.js');
    // Node-only transports and heavy modules load lazily, behind the adapters that need them.
    for (const heavy of ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@agentclientprotocol/sdk', 'ws', 'node-llama-cpp', 'better-sqlite3', 'jiti']) {
      expect(loaded, `${heavy} was loaded by the public entry`).not.toContain(heavy);
    }
  });
});
