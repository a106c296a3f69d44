import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// What `npm pack` would publish, from npm itself (`--dry-run --json`; `--ignore-scripts` so the
// check never rebuilds dist under the other tests). Run after `tsc` (npm test builds first).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let files: Set<string>;

beforeAll(() => {
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`npm pack --dry-run failed (${result.status}): ${result.stderr}`);
  const [pack] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }> }>;
  files = new Set(pack.files.map((file) => file.path));
}, 90_000);

describe('the packed tarball', () => {
  it('holds the CLI, the library entry and its types, the licence and the README', () => {
    for (const path of ['package.json', 'README.md', 'LICENSE', 'dist/bin/plaited-agent.js', 'dist/src/index.js', 'dist/src/index.d.ts']) {
      expect(files, path).toContain(path);
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; keywords?: string[]; bin: Record<string, string> };
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(pkg.keywords?.length).toBeGreaterThan(0);
    for (const bin of Object.values(pkg.bin)) expect(files).toContain(bin.replace(/^\.\//, ''));
  });

  it('holds no benchmarks, tests, fixtures or tools', () => {
    const stray = [...files].filter((path) => /^(dist\/bench|dist\/test|bench|test|tools|examples|node_modules|\.ci)\//.test(path));
    expect(stray).toEqual([]);
  });

  it('every source map points at sources that ship, and every sourceMappingURL at a map that ships', () => {
    const maps = [...files].filter((path) => path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const dangling: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const path = posix.normalize(posix.join(posix.dirname(map), sourceRoot, source));
        if (!files.has(path)) dangling.push(`${map} -> ${path}`);
      }
    }
    for (const js of [...files].filter((path) => path.endsWith('.js'))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(ROOT, js), 'utf8'))?.[1];
      if (url && !files.has(posix.join(posix.dirname(js), url))) dangling.push(`${js} -> ${url}`);
    }
    // A dist file without a source is a stale build output (a deleted .ts): rebuild from a clean dist.
    expect(dangling).toEqual([]);
  });

  it("the README's links stay inside the package", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    // Code (fenced blocks, inline spans) is shown as text, not rendered as links.
    const prose = readme.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    const targets = [...prose.matchAll(/\]\(([^)\s]+)[^)]*\)|<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
    const leaving = targets.filter((target) => {
      if (/^(https?:|mailto:|#)/.test(target)) return false;
      const path = posix.normalize(target.split('#')[0]);
      return path.startsWith('..') || !files.has(path);
    });
    expect(leaving).toEqual([]);
    // Nor does it send the reader to folders beside the repository.
    expect(readme).not.toMatch(/\.\.\/shared/);
  });
});
