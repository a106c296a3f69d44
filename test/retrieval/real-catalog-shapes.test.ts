import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/model/embedder.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { createTestEmbedder } from './test-embedder.js';

/**
 * Shapes of real MCP catalogs that the shared datasets lack: the same tool on several
 * servers, a terse tool next to one with a description of hundreds of words, requests
 * wrapped in politeness, literal values in requests.
 */
const tool = (namespace: string, name: string, description: string, group = ''): IndexDocument => ({
  id: `tool:mcp__${namespace}__${name}`,
  kind: 'tool',
  namespace,
  fields: { name, description, group },
});

const longDescription = Array.from(
  { length: 40 },
  (_, i) => `Section ${i}: this integration covers accounts, billing, exports, audit logs and settings; it may notify by email when a job ends.`,
).join(' ');

let embedder: Embedder;
let index: HybridIndex;

beforeAll(async () => {
  embedder = createTestEmbedder();
  index = await openHybridIndex({ path: ':memory:', embedder });
  const servers: Record<string, IndexDocument[]> = {
    fs: [
      tool('fs', 'write_file', 'Write content to a file.', 'Local files: read, write and list files and folders.'),
      tool('fs', 'read_file', 'Read a file.', 'Local files: read, write and list files and folders.'),
      tool('fs', 'list_directory', 'List a folder.', 'Local files: read, write and list files and folders.'),
    ],
    notes: [tool('notes', 'write_file', 'Write content to a file.', 'A notes app.'), tool('notes', 'tag_note', 'Tag a note.', 'A notes app.')],
    cloud: [tool('cloud', 'write_file', 'Write content to a file.', 'Cloud buckets.'), tool('cloud', 'create_bucket', 'Create a bucket.', 'Cloud buckets.')],
    mail: [tool('mail', 'sendEmail', ''), tool('mail', 'admin_console', longDescription)],
  };
  for (const [namespace, documents] of Object.entries(servers)) await index.sync(namespace, documents);
});

afterAll(async () => {
  index.close();
  await embedder.close();
});

const ids = async (query: string, limit = 3) => (await index.search(query, { limit })).map((hit) => hit.id);

describe('real catalog shapes', () => {
  it('near-duplicates: the server whose other tools also match wins the tie', async () => {
    expect((await ids('write the file, then read the file back and list the folder'))[0]).toBe('tool:mcp__fs__write_file');
  });

  it('group boost alone (no server description field) lifts the relevant server\'s duplicate', async () => {
    const rank = async (tuning: { groupBoost?: number }) => {
      const bare = await openHybridIndex({ path: ':memory:', embedder, tuning: { ...tuning, fieldWeights: { grp: 0 } } });
      // fs is indexed last, so plain ties would put its write_file after the others.
      await bare.sync('notes', [tool('notes', 'write_file', 'Write content to a file.'), tool('notes', 'tag_note', 'Tag a note.')]);
      await bare.sync('cloud', [tool('cloud', 'write_file', 'Write content to a file.'), tool('cloud', 'create_bucket', 'Create a bucket.')]);
      await bare.sync('fs', [tool('fs', 'write_file', 'Write content to a file.'), tool('fs', 'read_file', 'Read a file.'), tool('fs', 'list_directory', 'List a folder.')]);
      const hits = await bare.search('write the file, then read the file back and list the folder', { limit: 6 });
      bare.close();
      return hits.filter((hit) => hit.document.fields.name === 'write_file').map((hit) => hit.document.namespace);
    };
    expect((await rank({}))[0]).toBe('fs');
    // The control: without the boost the three identical tools tie, and fs is not first.
    expect((await rank({ groupBoost: 0 }))[0]).not.toBe('fs');
  });

  it('a terse, well-named tool beats a long description that mentions the words in passing', async () => {
    expect((await ids('send an email'))[0]).toBe('tool:mcp__mail__sendEmail');
  });

  it('politeness and literal values do not change the answer', async () => {
    const plain = await ids('send an email', 1);
    expect(await ids('Hi! Could you please help me send an email to bob@example.com at 10:30 on 2024-05-01? Thanks!', 1)).toEqual(plain);
  });

  it('returns every duplicate, so the caller can still choose by server', async () => {
    const hits = await index.search('write to a file', { limit: 5, kinds: ['tool'] });
    const writeFiles = hits.filter((hit) => hit.document.fields.name === 'write_file').map((hit) => hit.document.namespace);
    expect(writeFiles.sort()).toEqual(['cloud', 'fs', 'notes']);
  });
});
