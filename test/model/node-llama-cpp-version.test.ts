import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeLlamaCppVersion } from '../../src/model/shared-llama.js';

const root = resolve(import.meta.dirname, '../..');

/** The package.json of node-llama-cpp as installed (it exports no `./package.json`: found from its entry). */
function installedVersion(): string {
  let dir = dirname(createRequire(join(root, 'package.json')).resolve('node-llama-cpp'));
  while (!existsSync(join(dir, 'package.json')) || !readFileSync(join(dir, 'package.json'), 'utf8').includes('"name": "node-llama-cpp"')) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('the node-llama-cpp version the local models are built against', () => {
  it('is read from package.json (its optional peer), and is the version installed', () => {
    const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
    expect(nodeLlamaCppVersion()).toBe(own.peerDependencies['node-llama-cpp']);
    expect(nodeLlamaCppVersion()).toBe(installedVersion());
  });
});
