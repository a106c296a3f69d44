import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFingerprint } from '../../src/config/config-fingerprint.js';
import { recordTrust, trustStorePath } from '../../src/config/config-trust.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): { root: string; config: string } {
  const root = mkdtempSync(join(tmpdir(), 'plaited-trust-unit-'));
  made.push(root);
  mkdirSync(join(root, '.plaited'));
  const config = join(root, '.plaited', 'config.json');
  writeFileSync(config, '{}\n');
  return { root, config };
}

describe('the trust store', () => {
  it("forgets the trusts of configs that are gone when it records a new one, and keeps the others'", async () => {
    const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'plaited-trust-xdg-')) };
    made.push(env.XDG_CONFIG_HOME);
    const [gone, kept, next] = [project(), project(), project()];
    for (const { root, config } of [gone, kept]) await recordTrust(config, await configFingerprint(config, root), env);
    rmSync(gone.root, { recursive: true });
    await recordTrust(next.config, await configFingerprint(next.config, next.root), env);
    const store = JSON.parse(readFileSync(trustStorePath(env), 'utf8')) as { configs: Record<string, unknown> };
    expect(Object.keys(store.configs).sort()).toEqual([kept.config, next.config].map((file) => realpathSync(file)).sort());
  });
});
