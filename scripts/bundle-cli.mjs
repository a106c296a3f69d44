// Bundles the CLI's start-up path (our code up to `initialize`, the ACP SDK and zod) into one
// file, so a cold start loads a handful of modules instead of ~200. Everything loaded lazily
// (dynamic import) stays external and comes from the tsc output in dist/, as do npm packages.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const bundled = new Set(['@agentclientprotocol/sdk', 'zod']);
const outdir = resolve(root, 'dist/cli');

const lazyStaysExternal = {
  name: 'lazy-stays-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'dynamic-import' && args.path.startsWith('.')) {
        const target = resolve(args.resolveDir, args.path);
        let path = relative(outdir, target);
        if (!path.startsWith('.')) path = `./${path}`;
        return { path, external: true };
      }
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      if (!args.path.startsWith('.') && !args.path.startsWith('/') && !bundled.has(name) && pkg.dependencies[name]) {
        return { path: args.path, external: true };
      }
      return undefined;
    });
  },
};

await build({
  entryPoints: [resolve(root, 'dist/bin/plaited-agent.js')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: resolve(outdir, 'plaited-agent.js'),
  plugins: [lazyStaysExternal],
  define: { PLAITED_BUNDLED_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
