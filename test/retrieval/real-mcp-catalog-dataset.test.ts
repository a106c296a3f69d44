import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { goldGroupsOf, loadDataset } from '../../bench/retrieval-dataset.js';

const ROOT = fileURLToPath(new URL('../../bench/data/real-mcp-catalog/', import.meta.url));

interface RecordedCatalog {
  servers: { id: string; package: string; version: string; tools: { name: string }[] }[];
  skipped: { id: string; reason: string }[];
}

describe('the real MCP catalog dataset (bench/data/real-mcp-catalog)', () => {
  const all = loadDataset(ROOT);
  const dev = loadDataset(`${ROOT}dev`);
  const heldout = loadDataset(`${ROOT}heldout`);
  const toolIds = new Set(all.tools.map((tool) => tool.id));

  it('holds the tools of a few dozen recorded servers, each with its package version', () => {
    const catalog = JSON.parse(readFileSync(`${ROOT}catalog.json`, 'utf8')) as RecordedCatalog;
    expect(catalog.servers.length).toBeGreaterThanOrEqual(30);
    for (const server of catalog.servers) expect(server.version).toMatch(/^\d+\.\d+\.\d+/);
    const recorded = catalog.servers.flatMap((server) => server.tools.map((tool) => `${server.id}__${tool.name}`));
    expect(new Set(recorded)).toEqual(toolIds);
    expect(recorded.length).toBe(all.tools.length);
  });

  it('has every gold id of every task in tools.jsonl', () => {
    expect(all.queries.length).toBeGreaterThanOrEqual(60);
    const missing = all.queries.flatMap((query) =>
      [...query.gold, ...goldGroupsOf(query).flat()].filter((id) => !toolIds.has(id)).map((id) => `${query.id}: ${id}`),
    );
    expect(missing).toEqual([]);
  });

  it('splits the tasks into disjoint dev and held-out halves that together are all of them', () => {
    const devIds = dev.queries.map((query) => query.id);
    const heldoutIds = heldout.queries.map((query) => query.id);
    expect(devIds.filter((id) => heldoutIds.includes(id))).toEqual([]);
    expect([...devIds, ...heldoutIds].sort()).toEqual(all.queries.map((query) => query.id).sort());
    expect(dev.tools.length).toBe(all.tools.length);
    expect(heldout.tools.length).toBe(all.tools.length);
  });

  it('states tasks as goals: no tool name with a separator appears in a request', () => {
    const names = [...new Set(all.tools.map((tool) => tool.name))].filter((name) => /[_-]/.test(name));
    const leaks = all.queries.flatMap((query) =>
      names.filter((name) => query.query.toLowerCase().includes(name.toLowerCase())).map((name) => `${query.id}: ${name}`),
    );
    expect(leaks).toEqual([]);
  });
});
