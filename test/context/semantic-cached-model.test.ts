import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { semanticCachedModel } from '../../src/context/semantic-cached-model.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { testEmbedder } from './context-test-kit.js';

const embedder = testEmbedder();
afterAll(async () => {
  await embedder.close();
});

describe('the semantic cache file', () => {
  it('one that cannot be read is moved aside and said, never written over unread', async () => {
    const projectDir = mkdtempSync(join(tmpdir(), 'plaited-cache-file-'));
    try {
      const file = join(projectDir, '.plaited/semantic-cache.json');
      mkdirSync(join(projectDir, '.plaited'));
      writeFileSync(file, '[{"key": {"text": "trunc');
      const warnings: string[] = [];
      const model = await semanticCachedModel({
        base: async () => scriptedModel([{ text: 'hello' }]),
        embedder: async () => embedder,
        config: configSchema.parse({ cache: { enabled: true } }),
        projectDir,
        warn: (message) => warnings.push(message),
      });
      expect(model.specificationVersion).toBe('v3');
      expect(warnings).toEqual([expect.stringMatching(new RegExp(`^the semantic cache ${file} could not be read \\(.*JSON.*\\): moved to ${file}\\.damaged; the cache starts empty$`))]);
      expect(existsSync(file)).toBe(false);
      expect(readFileSync(`${file}.damaged`, 'utf8')).toBe('[{"key": {"text": "trunc');
    } finally {
      rmSync(projectDir, { recursive: true, force: true });
    }
  });
});
