import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { configSchema } from '../../src/config/schema.js';
import { trustConfigFor } from '../helpers/trust-config.js';

const fixtures = resolve(import.meta.dirname, '../fixtures/config');
const defineConfigSource = resolve(import.meta.dirname, '../../src/config/define-config.ts');

/** jiti's transpiled copies under a cache folder, as paths relative to it. */
function copiesIn(cache: string): string[] {
  return readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((path) => /\.[cm]?js$/.test(path)).sort();
}

async function loadError(options: Parameters<typeof loadConfig>[0]): Promise<ConfigError> {
  try {
    await trustConfigFor(options);
    await loadConfig(options);
  } catch (error) {
    expect(ConfigError.isInstance(error), `expected a ConfigError, got ${String(error)}`).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to fail');
}

/** Loads as the CLI does once the user has trusted the config (`plaited-agent trust`). */
async function loadTrusted(options: Parameters<typeof loadConfig>[0]): ReturnType<typeof loadConfig> {
  await trustConfigFor(options);
  return loadConfig(options);
}

describe('loadConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaited-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads .plaited/config.ts written with defineConfig (imported by absolute path)', async () => {
    mkdirSync(join(dir, '.plaited'));
    writeFileSync(
      join(dir, '.plaited', 'config.ts'),
      [
        `import { defineConfig } from ${JSON.stringify(defineConfigSource)};`,
        `const port: number = 4000 + 1;`,
        `export default defineConfig({`,
        `  agent: { model: 'openai-compatible:llama3', maxSteps: 4 },`,
        `  adapters: { acp: { transport: 'http', port } },`,
        `  tools: { deny: ['bash'] },`,
        `});`,
      ].join('\n'),
    );
    const { config, path } = await loadTrusted({ cwd: dir });
    expect(path).toBe(join(dir, '.plaited', 'config.ts'));
    expect(config.agent).toMatchObject({ model: 'openai-compatible:llama3', maxSteps: 4, sendMode: 'steer' });
    expect(config.adapters.acp).toEqual({ transport: 'http', host: '127.0.0.1', port: 4001, idleTimeoutMs: 300_000, maxMessageBytes: 32 * 1024 * 1024, maxJsonDepth: 128 });
    expect(config.tools.deny).toEqual(['bash']);
    expect(config.tools.sources.mcp).toBe(true);
  });

  it('loads .json with defaults filled in', async () => {
    const cwd = join(fixtures, 'json-project');
    const { config, path } = await loadTrusted({ cwd });
    expect(path).toBe(join(cwd, '.plaited', 'config.json'));
    expect(config.agent).toMatchObject({ model: 'openai-compatible:qwen3', maxSteps: 7, baseURL: 'http://127.0.0.1:11434/v1' });
    expect(config.mcp.servers).toEqual([
      expect.objectContaining({ id: 'files', command: 'node', args: ['files.js'], env: {}, timeoutMs: 30_000, enabled: true }),
    ]);
    expect(config.scripts).toEqual({ test: 'npm test' });
  });

  it('loads .mjs, evaluating it', async () => {
    const { config, path } = await loadTrusted({ cwd: join(fixtures, 'mjs-project') });
    expect(path).toMatch(/config\.mjs$/);
    expect(config.agent.maxSteps).toBe(12);
    expect(config.agent.systemPrompt).toBe('You are terse. Answer in English.');
    expect(config.skills.enabled).toBe(false);
  });

  it('prefers config.ts over config.json when both exist', async () => {
    const { config, path } = await loadTrusted({ cwd: join(fixtures, 'precedence') });
    expect(path).toMatch(/config\.ts$/);
    expect(config.agent.maxSteps).toBe(11);
  });

  it('passes an AI SDK LanguageModel object through as the model', async () => {
    const { config } = await loadTrusted({ cwd: join(fixtures, 'model-object') });
    expect(typeof config.agent.model).toBe('object');
    expect(config.agent.model).toMatchObject({ specificationVersion: 'v3', modelId: 'scripted' });
  });

  it('lists every invalid field with its dotted path, and names the file', async () => {
    const cwd = join(fixtures, 'invalid-fields');
    const error = await loadError({ cwd });
    const file = join(cwd, '.plaited', 'config.json');
    expect(error.code).toBe('invalid_config');
    expect(error.file).toBe(file);
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'agent.maxSteps',
        'agent.temperature',
        'agent.maxStep',
        'mcp.servers.0.url',
        'mcp.servers.1.id',
        'cache.threshold',
        'colour',
      ]),
    );
    expect(paths).toHaveLength(7);
    expect(error.message).toContain(file);
    // One line per issue, each naming its path.
    const lines = error.message.split('\n').slice(1);
    expect(lines).toHaveLength(7);
    for (const path of paths) expect(lines.some((line) => line.trim().startsWith(`${path}:`))).toBe(true);
    expect(error.issues.find((issue) => issue.path === 'mcp.servers.0.url')!.message).toContain('http transport');
  });

  it('rejects an unknown key at its own path', async () => {
    mkdirSync(join(dir, '.plaited'));
    writeFileSync(join(dir, '.plaited', 'config.json'), JSON.stringify({ agent: { modle: 'x' } }));
    const error = await loadError({ cwd: dir });
    expect(error.issues).toEqual([{ path: 'agent.modle', message: 'unknown key' }]);
  });

  it('names the key a misspelt one was meant to be, in the message (the issue stays "unknown key")', async () => {
    mkdirSync(join(dir, '.plaited'));
    writeFileSync(join(dir, '.plaited', 'config.json'), JSON.stringify({ agent: { maxStep: 3 }, tool: {}, zzz: 1 }));
    const error = await loadError({ cwd: dir });
    expect(error.issues).toContainEqual({ path: 'agent.maxStep', message: 'unknown key' });
    expect(error.message).toContain('agent.maxStep: unknown key (did you mean agent.maxSteps?)');
    expect(error.message).toContain('tool: unknown key (did you mean tools?)');
    expect(error.message).toMatch(/zzz: unknown key$/m);
  });

  it('reports a syntax error as a load failure naming the file', async () => {
    const cwd = join(fixtures, 'syntax-error');
    const error = await loadError({ cwd });
    expect(error.code).toBe('config_load_failed');
    expect(error.file).toBe(join(cwd, '.plaited', 'config.ts'));
    expect(error.message).toContain(join(cwd, '.plaited', 'config.ts'));
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('reports a config that throws while loading, with the thrown message', async () => {
    const error = await loadError({ cwd: join(fixtures, 'throws-on-load') });
    expect(error.code).toBe('config_load_failed');
    expect(error.message).toMatch(/config\.mjs/);
    expect(error.message).toContain('PLAITED_API_KEY must be set');
  });

  it('reports malformed JSON naming the file', async () => {
    const error = await loadError({ cwd: join(fixtures, 'bad-json') });
    expect(error.code).toBe('config_load_failed');
    expect(error.message).toContain(join(fixtures, 'bad-json', '.plaited', 'config.json'));
  });

  it('uses an explicit configPath relative to cwd instead of looking in .plaited', async () => {
    const cwd = join(fixtures, 'explicit-path');
    const { config, path } = await loadTrusted({ cwd, configPath: 'team.config.mts' });
    expect(path).toBe(join(cwd, 'team.config.mts'));
    expect(config.agent).toMatchObject({ maxSteps: 5, defaultMode: 'plan' });

    // Explicit wins even when the cwd has its own .plaited config.
    const other = await loadTrusted({ cwd: join(fixtures, 'json-project'), configPath: join(cwd, 'team.config.mts') });
    expect(other.config.agent.maxSteps).toBe(5);
  });

  it('fails when the explicit configPath does not exist', async () => {
    const error = await loadError({ cwd: dir, configPath: 'nope/config.ts' });
    expect(error.code).toBe('config_not_found');
    expect(error.message).toContain(join(dir, 'nope', 'config.ts'));
  });

  it('names a folder given as the configPath as a folder, with the file to pass instead', async () => {
    mkdirSync(join(dir, 'team-config'), { recursive: true });
    const error = await loadError({ cwd: dir, configPath: 'team-config' });
    expect(error.code).toBe('config_not_found');
    expect(error.message).toBe(`Config file ${join(dir, 'team-config')} is a folder: pass the config file itself, e.g. --config ${join(dir, 'team-config', 'config.ts')}`);
  });

  it('returns the defaults and no path when there is no config file', async () => {
    const { config, path } = await loadTrusted({ cwd: join(fixtures, 'no-config') });
    expect(path).toBeNull();
    expect(config).toEqual(configSchema.parse({}));
    expect(config.agent.maxSteps).toBe(25);

    // An empty .plaited folder is the same as none.
    mkdirSync(join(dir, '.plaited'));
    expect((await loadTrusted({ cwd: dir })).path).toBeNull();
  });

  it.each(['config.mjs', 'config.ts'])('sees an edited %s on the next load', async (name) => {
    mkdirSync(join(dir, '.plaited'));
    const file = join(dir, '.plaited', name);
    writeFileSync(file, 'export default { agent: { maxSteps: 1 } };');
    expect((await loadTrusted({ cwd: dir })).config.agent.maxSteps).toBe(1);
    writeFileSync(file, 'export default { agent: { maxSteps: 2 } };');
    // Same-millisecond writes are possible on fast disks; the mtime is part of the cache key.
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await loadTrusted({ cwd: dir })).config.agent.maxSteps).toBe(2);
  });

  it('loads .js configs in CommonJS and ES module packages', async () => {
    const cjs = join(dir, 'cjs');
    mkdirSync(join(cjs, '.plaited'), { recursive: true });
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(join(cjs, '.plaited', 'config.js'), 'module.exports = { agent: { maxSteps: 6 } };');
    expect((await loadTrusted({ cwd: cjs })).config.agent.maxSteps).toBe(6);

    const esmInCjs = join(dir, 'esm-in-cjs');
    mkdirSync(join(esmInCjs, '.plaited'), { recursive: true });
    writeFileSync(join(esmInCjs, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(join(esmInCjs, '.plaited', 'config.js'), 'export default { agent: { maxSteps: 8 } };');
    expect((await loadTrusted({ cwd: esmInCjs })).config.agent.maxSteps).toBe(8);
  });
});

describe('a config.json saved as UTF-16', () => {
  it('is read (its byte order mark says how), not "Unexpected token"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-config-'));
    try {
      mkdirSync(join(dir, '.plaited'));
      writeFileSync(join(dir, '.plaited', 'config.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{ "agent": { "maxSteps": 9 } }\n', 'utf16le')]));
      expect((await loadTrusted({ cwd: dir })).config.agent.maxSteps).toBe(9);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a config too large to be one', () => {
  it('is refused by trust, naming its size, and not read whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-config-'));
    try {
      mkdirSync(join(dir, '.plaited'));
      const file = join(dir, '.plaited', 'config.json');
      writeFileSync(file, '{ "agent": { "maxSteps": 3 } }');
      // Sparse: 3 GiB of size and no disk. Read whole it failed ("greater than 2 GiB"); 200 MB took 650 MB.
      truncateSync(file, 3 * 1024 ** 3);
      const { configFingerprint } = await import('../../src/config/config-fingerprint.js');
      await expect(configFingerprint(file, dir)).rejects.toMatchObject({
        code: 'config_untrustable',
        message: `.plaited/config.json is ${3 * 1024 ** 3} bytes, over ${16 * 1024 * 1024}: no config (nor a file it imports) is that large, and it is not read whole to be checked. Is it the right file?`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a config entry that is no file', () => {
  it('a folder or a symlink loop in its place is not read, and said (not silently the default config)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-config-'));
    try {
      mkdirSync(join(dir, '.plaited', 'config.json'), { recursive: true });
      symlinkSync('config.ts', join(dir, '.plaited', 'config.ts'));
      const loaded = await loadConfig({ cwd: dir });
      expect(loaded.path).toBeNull();
      expect(loaded.warnings).toEqual([
        `${join(dir, '.plaited', 'config.ts')} is not a config file to read (ELOOP: too many symbolic links encountered, stat '${join(dir, '.plaited', 'config.ts')}'), so it was not: the agent starts with the default config. Put the config there as a file.`,
        `${join(dir, '.plaited', 'config.json')} is not a config file to read (a folder), so it was not: the agent starts with the default config. Put the config there as a file.`,
      ]);
      // An empty file is no config and nothing to say: a sandbox's placeholder for a missing one.
      rmSync(join(dir, '.plaited'), { recursive: true });
      mkdirSync(join(dir, '.plaited'));
      writeFileSync(join(dir, '.plaited', 'config.json'), '');
      expect(await loadConfig({ cwd: dir })).toEqual({ config: configSchema.parse({}), path: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the transpiled copies of a TypeScript config', () => {
  let dir: string;
  let configHome: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaited-config-'));
    configHome = mkdtempSync(join(tmpdir(), 'plaited-xdg-'));
    mkdirSync(join(dir, '.plaited'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(configHome, { recursive: true, force: true });
  });

  it("are kept in the user's own folder (0700) and reused until the source changes", async () => {
    const file = join(dir, '.plaited', 'config.ts');
    writeFileSync(file, 'const steps: number = 3;\nexport default { agent: { maxSteps: steps } };\n');
    const options = { cwd: dir, requireTrust: false, env: { ...process.env, XDG_CONFIG_HOME: configHome } };
    expect((await loadConfig(options)).config.agent.maxSteps).toBe(3);

    const cache = join(configHome, 'plaited-agent', 'transpiled');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const [copy, ...others] = copiesIn(cache);
    expect(others).toEqual([]);
    // What the next start runs is the kept copy, not the source: why only the user may write the folder.
    const kept = readFileSync(join(cache, copy!), 'utf8');
    writeFileSync(join(cache, copy!), kept.replace('= 3', '= 30'));
    expect((await loadConfig(options)).config.agent.maxSteps).toBe(30);

    // An edited source does not match the copy's hash: it is transpiled afresh.
    writeFileSync(file, 'const steps: number = 4;\nexport default { agent: { maxSteps: steps } };\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await loadConfig(options)).config.agent.maxSteps).toBe(4);
  });

  it('are one per file while it lives, whatever its edits, and go once it is gone', async () => {
    const env = { ...process.env, XDG_CONFIG_HOME: configHome };
    const cache = join(configHome, 'plaited-agent', 'transpiled');
    const project = (name: string, steps: number): string => {
      const root = join(dir, name);
      mkdirSync(join(root, '.plaited'), { recursive: true });
      writeFileSync(join(root, '.plaited', 'helper.ts'), 'export const base: number = 1;\n');
      writeFileSync(join(root, '.plaited', 'config.ts'), `import { base } from './helper.ts';\nexport default { agent: { maxSteps: base + ${steps} } };\n`);
      return root;
    };
    const first = project('first', 1);
    for (const steps of [2, 3, 4]) {
      writeFileSync(join(first, '.plaited', 'config.ts'), `import { base } from './helper.ts';\nexport default { agent: { maxSteps: base + ${steps} } };\n`);
      expect((await loadConfig({ cwd: first, requireTrust: false, env })).config.agent.maxSteps).toBe(steps + 1);
    }
    // An edited config replaces its copy: one for the config, one for what it imports.
    expect(copiesIn(cache)).toHaveLength(2);
    expect((await loadConfig({ cwd: project('second', 5), requireTrust: false, env })).config.agent.maxSteps).toBe(6);
    expect(copiesIn(cache)).toHaveLength(4);

    // The first project is deleted: its copies go when the next new config is first loaded.
    rmSync(first, { recursive: true });
    expect((await loadConfig({ cwd: project('third', 7), requireTrust: false, env })).config.agent.maxSteps).toBe(8);
    const left = copiesIn(cache);
    expect(left).toHaveLength(4);
    for (const copy of left) expect(readFileSync(join(cache, dirname(copy), 'source'), 'utf8')).not.toContain(first);
  });

  it('one that cannot be read (a folder, a symlink loop in its place) is moved aside, said, and the config loads', async () => {
    writeFileSync(join(dir, '.plaited', 'config.ts'), 'export default { agent: { maxSteps: 6 } as const };\n');
    const options = { cwd: dir, requireTrust: false, env: { ...process.env, XDG_CONFIG_HOME: configHome } };
    expect((await loadConfig(options)).warnings).toBeUndefined();
    // The file's own folder of copies (a hash of its path), beside nothing else here.
    const [folder] = readdirSync(join(configHome, 'plaited-agent', 'transpiled'));
    const cache = join(configHome, 'plaited-agent', 'transpiled', folder!);
    const copy = readdirSync(cache).find((name) => name !== 'source');
    for (const damage of [() => mkdirSync(join(cache, copy!)), () => symlinkSync(copy!, join(cache, copy!))]) {
      rmSync(join(cache, copy!), { recursive: true, force: true });
      damage();
      const loaded = await loadConfig(options);
      expect(loaded.config.agent.maxSteps).toBe(6);
      expect(loaded.warnings).toEqual([expect.stringMatching(new RegExp(`^a transpiled copy of .*config\\.ts in ${cache} could not be read \\((EISDIR|ELOOP).*\\): moved ${copy!.replace(/\./g, '\\.')} aside \\(\\.damaged\\)$`))]);
      // The next start makes the copy again, and says nothing.
      expect((await loadConfig(options)).warnings).toBeUndefined();
      expect(statSync(join(cache, copy!)).isFile()).toBe(true);
    }
    expect(readdirSync(cache).sort()).toEqual([copy, `${copy}.damaged`, `${copy}.damaged-2`, 'source'].sort());
  });

  it('are not kept where the folder cannot be made: the config still loads', async () => {
    writeFileSync(join(dir, '.plaited', 'config.ts'), 'export default { agent: { maxSteps: 5 } as const };\n');
    const notAFolder = join(configHome, 'file');
    writeFileSync(notAFolder, '');
    const loaded = await loadConfig({ cwd: dir, requireTrust: false, env: { ...process.env, XDG_CONFIG_HOME: notAFolder } });
    expect(loaded.config.agent.maxSteps).toBe(5);
  });
});

describe('sandbox limits', () => {
  it('rejects a memory limit that is not a size, at load time', async () => {
    const { validateConfig } = await import('../../src/config/load-config.js');
    expect(() => validateConfig({ adapters: { sandbox: { limits: { memory: 'lots' } } } })).toThrow(/adapters\.sandbox\.limits\.memory/);
    expect(validateConfig({ adapters: { sandbox: { limits: { memory: '512M' } } } }).adapters.sandbox.limits.memory).toBe('512M');
  });
});
