import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the agent reads from its own package.json. */
export interface OwnPackageJson {
  /** The folder holding it. */
  dir: string;
  version: string;
  peerDependencies: Readonly<Record<string, string>>;
}

let found: OwnPackageJson | null | undefined;

/**
 * plaited-agent's own package.json, found upwards from this file (it sits three folders up in the
 * built `dist/src/config/`, two when Bun runs the sources); `undefined` when there is none (a bundle).
 * Read once: versions said there are said nowhere else, so they cannot drift.
 */
export function ownPackageJson(): OwnPackageJson | undefined {
  if (found !== undefined) return found ?? undefined;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown; peerDependencies?: Record<string, string> };
      if (json.name === 'plaited-agent' && typeof json.version === 'string') {
        return (found = { dir, version: json.version, peerDependencies: json.peerDependencies ?? {} });
      }
    } catch {
      // no package.json here (or not ours): keep looking upwards
    }
    if (dirname(dir) === dir) {
      found = null;
      return undefined;
    }
  }
}
