import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { goldGroupsOf, loadDataset } from '../../bench/retrieval-dataset.js';

const ROOT = fileURLToPath(new URL('../../bench/data/real-mcp-catalog-wide/', import.meta.url));
const FIRST = fileURLToPath(new URL('../../bench/data/real-mcp-catalog/', import.meta.url));

interface RecordedCatalog {
  servers: { id: string; package: string; version: string; license: string | null; why: string; tools: { name: string }[] }[];
  skipped: { id: string; reason: string }[];
}

function readCatalog(dir: string): RecordedCatalog {
  return JSON.parse(readFileSync(`${dir}catalog.json`, 'utf8')) as RecordedCatalog;
}

describe('the wide real MCP catalog dataset (bench/data/real-mcp-catalog-wide)', () => {
  const heldout = loadDataset(`${ROOT}heldout`);
  const toolIds = new Set(heldout.tools.map((tool) => tool.id));

  it('holds the first catalog unchanged plus a few dozen more recorded servers, each with version, licence field and reason', () => {
    const wide = readCatalog(ROOT);
    const first = readCatalog(FIRST);
    expect(wide.servers.length).toBeGreaterThanOrEqual(first.servers.length + 20);
    for (const server of first.servers) expect(wide.servers.find((candidate) => candidate.id === server.id)).toEqual(server);
    for (const server of wide.servers) {
      expect(server.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(server.why.length).toBeGreaterThan(10);
    }
    const recorded = wide.servers.flatMap((server) => server.tools.map((tool) => `${server.id}__${tool.name}`));
    expect(new Set(recorded)).toEqual(toolIds);
    expect(recorded.length).toBe(heldout.tools.length);
    expect(new Set(wide.servers.map((server) => server.id)).size).toBe(wide.servers.length);
  });

  it('has 50-60 held-out tasks of 2-7 steps whose gold ids all exist, each canonical gold id inside its own group', () => {
    expect(heldout.queries.length).toBeGreaterThanOrEqual(50);
    expect(heldout.queries.length).toBeLessThanOrEqual(60);
    expect(new Set(heldout.queries.map((query) => query.id)).size).toBe(heldout.queries.length);
    const missing = heldout.queries.flatMap((query) =>
      [...query.gold, ...goldGroupsOf(query).flat()].filter((id) => !toolIds.has(id)).map((id) => `${query.id}: ${id}`),
    );
    expect(missing).toEqual([]);
    for (const query of heldout.queries) {
      const groups = goldGroupsOf(query);
      expect(groups.length, query.id).toBeGreaterThanOrEqual(2);
      expect(groups.length, query.id).toBeLessThanOrEqual(7);
      expect(query.gold.length, query.id).toBe(groups.length);
      query.gold.forEach((id, step) => expect(groups[step], `${query.id} step ${step}`).toContain(id));
    }
  });

  it('runs the first catalog’s dev and held-out tasks against the wide tool list', () => {
    for (const split of ['dev', 'heldout']) {
      const wide = loadDataset(`${ROOT}old-${split}`);
      expect(wide.queries).toEqual(loadDataset(`${FIRST}${split}`).queries);
      expect(wide.tools.map((tool) => tool.id)).toEqual(heldout.tools.map((tool) => tool.id));
    }
  });

  it('states tasks as goals: no tool name with a separator appears in a request', () => {
    const names = [...new Set(heldout.tools.map((tool) => tool.name))].filter((name) => /[_-]/.test(name));
    const leaks = heldout.queries.flatMap((query) =>
      names.filter((name) => query.query.toLowerCase().includes(name.toLowerCase())).map((name) => `${query.id}: ${name}`),
    );
    expect(leaks).toEqual([]);
  });
});
