import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runModelsCommand } from '../../src/model/models-command.js';
import { listCachedModels, resolveModelFile } from '../../src/model/model-files.js';
import { acquireSharedModel } from '../../src/model/shared-llama.js';
import { requireTestModel } from './test-models.js';

const chatModel = requireTestModel('PLAITED_TEST_CHAT_MODEL');
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-models-'));
  dirs.push(dir);
  return dir;
}

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  return { io: { stdout, stderr }, out: () => out, err: () => err };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('model files', () => {
  it('lists the GGUF files in the cache folder, and nothing for a missing folder', async () => {
    const dir = tempDir();
    symlinkSync(chatModel, join(dir, 'tiny.gguf'));
    writeFileSync(join(dir, 'notes.txt'), 'not a model');
    const models = await listCachedModels({ cacheDir: dir });
    expect(models.map((m) => m.file)).toEqual(['tiny.gguf']);
    expect(models[0].bytes).toBe(1_750_560);
    expect(await listCachedModels({ cacheDir: join(dir, 'absent') })).toEqual([]);
  });

  it('a GGUF file cut short (an interrupted download) fails to load naming the fix, and stays where it is', async () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.gguf');
    writeFileSync(cut, readFileSync(chatModel).subarray(0, 800_000));
    await expect(acquireSharedModel(cut)).rejects.toMatchObject({
      code: 'model_load_failed',
      message: expect.stringContaining('If the file is damaged or cut short (an interrupted download), move it aside and fetch it again (plaited-agent models pull SPEC)'),
    });
    expect(readFileSync(cut).length).toBe(800_000);
  });

  it('fails offline with the URI that was tried and how to use a local file', async () => {
    const dir = tempDir();
    await expect(resolveModelFile('hf:example-org/missing-GGUF:Q8_0', { cacheDir: dir, download: false })).rejects.toMatchObject({
      code: 'model_file_not_found',
      model: 'hf:example-org/missing-GGUF:Q8_0',
      message: expect.stringMatching(/hf:example-org\/missing-GGUF:Q8_0.*llama-cpp:\/path\/to\/model\.gguf/s),
    });
  });
});

describe('runModelsCommand', () => {
  it('lists cached models as text and JSON', async () => {
    const dir = tempDir();
    symlinkSync(chatModel, join(dir, 'tiny.gguf'));
    const text = io();
    expect(await runModelsCommand(['list', '--cache-dir', dir], text.io)).toBe(0);
    expect(text.out()).toContain('tiny.gguf');
    expect(text.out()).toContain('1.8 MB');
    const json = io();
    expect(await runModelsCommand(['list', `--cache-dir=${dir}`, '--json'], json.io)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({ cacheDir: dir, models: [{ file: 'tiny.gguf', bytes: 1_750_560 }] });
    const empty = io();
    expect(await runModelsCommand(['list', '--cache-dir', join(dir, 'none')], empty.io)).toBe(0);
    expect(empty.out()).toMatch(/No models cached/);
  });

  it('lists the rest past a symlink loop (named on stderr), and a cache that is not a folder is an error naming the fix, not a stack trace', async () => {
    const dir = tempDir();
    symlinkSync(chatModel, join(dir, 'tiny.gguf'));
    symlinkSync('loop.gguf', join(dir, 'loop.gguf'));
    const looped = io();
    expect(await runModelsCommand(['list', '--cache-dir', dir], looped.io)).toBe(0);
    expect(looped.out()).toContain('tiny.gguf');
    expect(looped.err()).toMatch(new RegExp(`^skipped ${join(dir, 'loop.gguf')}: ELOOP`));

    const notAFolder = join(dir, 'a-file');
    writeFileSync(notAFolder, 'x');
    const refused = io();
    expect(await runModelsCommand(['list', '--cache-dir', notAFolder], refused.io)).toBe(1);
    expect(refused.err()).toMatch(new RegExp(`^The model cache ${notAFolder} cannot be listed \\(ENOTDIR.*\\): make it a folder you can read, or use another \\(--cache-dir, PLAITED_MODELS_DIR\\)\\.\\n$`));
  });

  it('pull resolves a local file (with or without the llama-cpp: prefix) and prints its path', async () => {
    const run = io();
    expect(await runModelsCommand(['pull', `llama-cpp:${chatModel}`], run.io)).toBe(0);
    expect(run.out().trim()).toBe(chatModel);
  });

  it('pull of a missing file exits 1 with a message on stderr', async () => {
    const run = io();
    expect(await runModelsCommand(['pull', './nowhere/model.gguf'], run.io)).toBe(1);
    expect(run.out()).toBe('');
    expect(run.err()).toMatch(/Model file not found: .*nowhere\/model\.gguf/);
  });

  it('answers bad usage with exit 2 and the usage text', async () => {
    const run = io();
    expect(await runModelsCommand(['frobnicate'], run.io)).toBe(2);
    expect(run.err()).toMatch(/unknown subcommand "frobnicate".*models pull SPEC/s);
    const none = io();
    expect(await runModelsCommand(['pull'], none.io)).toBe(2);
  });
});
