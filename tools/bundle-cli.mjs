// Bundles the CLI tsc built (dist/bin/plaited-agent.js and what it imports) into dist/bin: one
// entry file and its lazily loaded chunks, beside each other. tsc stays the one compiler of the
// shipped code: the bundler only joins its output. The code stays unminified, so a stack trace
// reads; no source maps, since theirs would point into node_modules, which the package does not ship. A session start then reads ~80 files instead of
// ~400 (zod alone is 107): on the 2-core machine it costs 0.39–0.47 s of CPU instead of
// 0.69–0.76 (bench "CPU of one session start"). The library (dist/src) stays as tsc wrote it for
// programs that import 'plaited-agent'.
//
// Entries besides the CLI, each a file the running code reaches by a path relative to itself:
// - library.js: what a custom adapter's `import … from 'plaited-agent'` resolves to, so the
//   adapter shares the running CLI's module instances (load-adapter.ts);
// - sandbox-child-preload.js: `--import`ed into the whole-agent sandbox (sandbox-adapter.ts);
// - bun-sqlite-database.js: the store's driver under Bun (open-sqlite-database.ts).
import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { rolldown } from 'rolldown';

// Packages that find files of their own by path at run time (native bindings, a transpiler's
// lazily required parts, vendored binaries) or that a runtime provides: resolved from
// node_modules at run time, as before.
const EXTERNAL = ['better-sqlite3', 'node-llama-cpp', 'jiti', 'pg', 'pg-native', '@anthropic-ai/sandbox-runtime', 'undici', 'ws', 'bufferutil', 'utf-8-validate'];
const builtins = new Set(builtinModules);
const external = (id) =>
  id.startsWith('node:') || id.startsWith('bun:') || builtins.has(id) || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`));

const entry = 'dist/bin/plaited-agent.js';
const bundle = await rolldown({
  input: {
    'plaited-agent': entry,
    library: 'dist/src/index.js',
    'sandbox-child-preload': 'dist/src/adapters/sandbox/sandbox-child-preload.js',
    // Built by tsconfig.bun.json.
    'bun-sqlite-database': 'dist/src/storage/sqlite/bun-sqlite-database.js',
  },
  platform: 'node',
  external,
  // A dependency's own warnings (its `eval`, say) are not ours to act on; errors still fail the build.
  onLog(level, log, handler) {
    if (level === 'warn' && log.id?.includes('/node_modules/')) return;
    handler(level, log);
  },
});
const { output } = await bundle.generate({ dir: 'dist/bin', format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' });
await bundle.close();
// tsc's files in dist/bin go (they would load the unbundled dist/src), and the bundle takes their place.
for (const name of readdirSync('dist/bin')) rmSync(`dist/bin/${name}`);
for (const file of output) writeFileSync(`dist/bin/${file.fileName}`, file.type === 'chunk' ? file.code : file.source);
chmodSync(entry, 0o755);
process.stderr.write(`bundled ${entry}: ${output.length} files in dist/bin\n`);
