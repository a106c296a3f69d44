import { execFileSync } from 'node:child_process';
import { appendFile, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryExtension } from '../../src/context/memory-extension.js';
import { createMemoryTools } from '../../src/context/memory-tools.js';
import { MEMORY_PAGE_MAX_BYTES, MemoryWiki } from '../../src/context/memory-wiki.js';
import type { Embedder } from '../../src/model/embedder.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { copyFixture, FIXTURES, testEmbedder, testIndex, textOf, toolContext, turnContext } from './context-test-kit.js';

describe('MemoryWiki', () => {
  let embedder: Embedder;
  let index: HybridIndex;
  let copy: { dir: string; cleanup(): Promise<void> };

  beforeAll(async () => {
    embedder = testEmbedder();
    index = await testIndex(embedder);
    copy = await copyFixture('memory-wiki');
  });
  afterAll(async () => {
    index?.close();
    await embedder?.close();
    await copy?.cleanup();
  });

  it('ranks the right page first for each query, with a snippet from the matching lines', async () => {
    const wiki = new MemoryWiki({ dir: join(FIXTURES, 'memory-wiki'), index, namespace: 'memory:fixture' });
    const cases: Array<[string, string]> = [
      ['how do we roll back a broken deploy', 'deployment.md'],
      ['when are database backups taken', 'services/user-database.md'],
      ['who answers pages on the weekend', 'people/oncall-rotation.md'],
      ['how are passwords hashed', 'services/auth-service.md'],
      ['which formatter and linter do we use', 'coding-style.md'],
      ['how often do we ship a new version', 'release-process.md'],
    ];
    for (const [query, expected] of cases) {
      const hits = await wiki.search(query, { limit: 3 });
      expect(hits[0]?.path, query).toBe(expected);
    }
    const [backup] = await wiki.search('when are database backups taken');
    expect(backup.snippet).toContain('Backups run nightly');
    expect(backup.line).toBe(3);
    expect(backup.title).toBe('User database');
  });

  it('lint finds exactly the planted problems: one broken [[link]] and one dangling edge', async () => {
    const wiki = new MemoryWiki({ dir: join(FIXTURES, 'memory-wiki') });
    const issues = await wiki.lint();
    expect(issues.map(({ code, path, line }) => ({ code, path, line }))).toEqual([
      { code: 'broken-wikilink', path: 'people/oncall-rotation.md', line: 4 },
      { code: 'dangling-edge', path: 'relationships.jsonl', line: 3 },
    ]);
    expect(issues[1].message).toContain('billing-service');
  });

  it('lint reports missing support files and malformed edges', async () => {
    const wiki = new MemoryWiki({ dir: copy.dir });
    await rm(join(copy.dir, 'log.md'));
    await appendFile(join(copy.dir, 'relationships.jsonl'), '{"from":"deployment"}\nnot json\n');
    const codes = (await wiki.lint()).map((issue) => `${issue.code}:${issue.path}:${issue.line ?? ''}`);
    expect(codes).toEqual([
      'missing-support-file:log.md:',
      'broken-wikilink:people/oncall-rotation.md:4',
      'malformed-edge:relationships.jsonl:4',
      'malformed-edge:relationships.jsonl:5',
      'dangling-edge:relationships.jsonl:3',
    ]);
    expect(await wiki.ensureSupportFiles()).toEqual(['log.md']);
  });

  it('a 3 GiB page is searched by its first MiB, the rest of memory still answers, and lint names it', async () => {
    const { dir, cleanup } = await copyFixture('memory-wiki');
    try {
      const huge = join(dir, 'huge.md');
      await writeFile(huge, '# Huge page\n\nThe zeppelin hangar rota lives here.\n');
      // Sparse: 3 GiB of size and no disk. Read whole, it failed every search ("greater than 2 GiB").
      await truncate(huge, 3 * 1024 ** 3);
      const wiki = new MemoryWiki({ dir, index, namespace: 'memory:huge' });
      expect((await wiki.search('zeppelin hangar rota'))[0]?.path).toBe('huge.md');
      expect((await wiki.search('how do we roll back a broken deploy'))[0]?.path).toBe('deployment.md');
      const pages = await wiki.pages();
      expect(pages.find((page) => page.path === 'huge.md')?.text.length).toBeLessThanOrEqual(MEMORY_PAGE_MAX_BYTES);
      expect((await wiki.get('huge.md', { lines: 3 })).text).toContain('zeppelin');
      expect((await wiki.lint()).find((issue) => issue.path === 'huge.md')).toMatchObject({ code: 'oversized-page' });
    } finally {
      await cleanup();
    }
  });

  it('a named pipe for relationships.jsonl is refused, never waited on; a huge one is read up to its cap', async () => {
    const { dir, cleanup } = await copyFixture('memory-wiki');
    try {
      const edges = join(dir, 'relationships.jsonl');
      await rm(edges);
      execFileSync('mkfifo', [edges]);
      const wiki = new MemoryWiki({ dir });
      await expect(wiki.relationships()).rejects.toMatchObject({ code: 'ENOTFILE' });
      await rm(edges);
      await writeFile(edges, '{"from":"deployment","to":"release-process","type":"precedes"}\n');
      await truncate(edges, 3 * 1024 ** 3);
      expect((await wiki.relationships()).edges).toEqual([{ from: 'deployment', to: 'release-process', type: 'precedes' }]);
      const { added } = await wiki.recordRelationships([{ from: 'coding-style', to: 'deployment', type: 'informs' }]);
      expect(added).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });

  it('records relationships once per from|to|type and appends dated log entries', async () => {
    const times = [new Date('2026-11-22T03:30:00Z')];
    const wiki = new MemoryWiki({ dir: copy.dir, now: () => times[0] });
    const first = await wiki.recordRelationships([
      { from: 'deployment', to: 'auth-service', type: 'configures' },
      { from: 'auth-service', to: 'user-database', type: 'depends_on' },
      { from: 'deployment', to: 'auth-service', type: 'configures' },
    ]);
    expect(first.added.map((edge) => `${edge.from}|${edge.to}|${edge.type}`)).toEqual(['deployment|auth-service|configures']);
    expect(first.duplicates).toBe(2);
    const lines = (await readFile(join(copy.dir, 'relationships.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ from: 'deployment', to: 'auth-service', type: 'configures' });
    await expect(wiki.recordRelationships([{ from: ' ', to: 'x', type: 'y' }])).rejects.toThrow(/non-empty/);

    await wiki.appendLog({ title: 'Learned the deploy flow', text: 'Deploys need approval.' });
    const log = await readFile(join(copy.dir, 'log.md'), 'utf8');
    expect(log).toContain('## [2026-11-22 03:30] Learned the deploy flow\n\nDeploys need approval.\n');
  });

  it('refuses a named pipe in place of its log, relationships or index at once, and goes on writing', async () => {
    // Appended plainly, each write waited for the pipe's reader on one of libuv's four file threads, for good.
    const own = await copyFixture('memory-wiki');
    try {
      const wiki = new MemoryWiki({ dir: own.dir });
      await wiki.ensureSupportFiles();
      for (const name of ['log.md', 'relationships.jsonl', 'index.md']) {
        await rm(join(own.dir, name));
        execFileSync('mkfifo', [join(own.dir, name)]);
      }
      const refused = await Promise.allSettled([
        wiki.appendLog({ title: 'to a pipe' }),
        wiki.recordRelationships([{ from: 'a', to: 'b', type: 'c' }]),
        wiki.writeIndex(),
      ]);
      // Refused, each naming a pipe: the writer's own check, or the page reader's (the index reads every page first).
      for (const outcome of refused) {
        expect(outcome.status).toBe('rejected');
        expect(['not_a_regular_file', 'ENOTFILE']).toContain(((outcome as PromiseRejectedResult).reason as { code: string }).code);
      }
      await rm(join(own.dir, 'log.md'));
      await wiki.appendLog({ title: 'after the pipe' });
      expect(await readFile(join(own.dir, 'log.md'), 'utf8')).toContain('after the pipe');
    } finally {
      await own.cleanup();
    }
  });

  it('reads bounded windows inside the wiki only', async () => {
    const wiki = new MemoryWiki({ dir: copy.dir });
    const window = await wiki.get('services/user-database.md', { from: 2, lines: 2 });
    expect(window).toMatchObject({ path: 'services/user-database.md', from: 2, to: 3, totalLines: 4 });
    expect(window.text.split('\n')).toHaveLength(2);
    expect((await wiki.get('deployment.md', { lines: 10_000 })).to).toBe(5);
    await expect(wiki.get('../../etc/passwd')).rejects.toMatchObject({ code: 'path-outside-root' });
    await expect(wiki.get('/etc/passwd')).rejects.toMatchObject({ code: 'path-outside-root' });
    await expect(wiki.get('nope.md')).rejects.toMatchObject({ code: 'not-found' });
  });

  it('renders an index of every page with its title and first sentence', async () => {
    const wiki = new MemoryWiki({ dir: copy.dir });
    const text = await wiki.writeIndex();
    expect(text).toContain('- [Deployment](deployment.md) — Production deploys run from the main branch');
    expect(text).toContain('- [User database](services/user-database.md)');
    expect(text).not.toContain('(index.md)');
    expect(await readFile(join(copy.dir, 'index.md'), 'utf8')).toBe(text);
  });

  it('offers search, get and lint as reads, the wiki writers at write risk; a page written by another tool is searchable next', async () => {
    const tools = createMemoryTools(new MemoryWiki({ dir: copy.dir, index, namespace: 'memory:tools' }));
    expect(tools.map((tool) => `${tool.name}:${tool.risk}:${tool.source}`)).toEqual([
      'memory_search:read:memory',
      'memory_get:read:memory',
      'wiki_lint:read:memory',
      'wiki_update_index:write:memory',
      'wiki_append_log:write:memory',
      'wiki_record_relationship:write:memory',
    ]);
    const extension = createMemoryExtension({ config: { enabled: true, dir: '.' }, index });
    const context = turnContext({ cwd: copy.dir });
    const [search, get] = (await extension.tools!(context)) as typeof tools;
    const ctx = toolContext({ cwd: copy.dir });
    const before = textOf(await search.execute({ query: 'quarterly budget spreadsheet', limit: 1 }, ctx));
    expect(before).not.toContain('budget.md');
    await writeFile(join(copy.dir, 'budget.md'), '# Budget\n\nThe quarterly budget spreadsheet lives in the finance drive.\n');
    await extension.onToolResult!(context, {
      toolCallId: 'call-1',
      toolName: 'write_file',
      risk: 'write',
      source: 'local',
      args: {},
      result: { content: [{ type: 'text', text: 'ok' }] },
      locations: [{ path: join(copy.dir, 'budget.md') }],
    });
    const after = textOf(await search.execute({ query: 'quarterly budget spreadsheet', limit: 1 }, ctx));
    expect(after).toContain('budget.md — Budget');
    const outside = await get.execute({ path: '../secret', from: 1, lines: 5 }, ctx);
    expect(outside.isError).toBe(true);
  });
});
