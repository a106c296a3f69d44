import { describe, expect, it } from 'vitest';
import { depthOver, listPageSchema, MAX_CATALOG_ITEM_DEPTH, type SkippedCatalogItem } from '../../src/mcp/list-page-schema.js';

const tool = (name: string, inputSchema: unknown = { type: 'object' }) => ({ name, inputSchema });

describe('listPageSchema', () => {
  it('keeps the valid items of a page and reports each one it leaves out', () => {
    let deep: unknown = { type: 'string' };
    for (let level = 0; level < 1500; level++) deep = { type: 'object', properties: { inner: deep } };
    const skipped: SkippedCatalogItem[] = [];
    const page = { tools: [tool('ok_one'), tool('too_deep', { type: 'object', properties: { root: deep } }), tool('bad_schema', 'not a schema'), 42, tool('ok_two')], nextCursor: 'c2' };
    const result = listPageSchema('tools/list', (item) => skipped.push(item))['~standard'].validate(page);
    expect('issues' in result && result.issues).toBeFalsy();
    const value = (result as { value: { tools: Array<{ name: string }>; nextCursor: string } }).value;
    expect(value.tools.map((item) => item.name)).toEqual(['ok_one', 'ok_two']);
    expect(value.nextCursor).toBe('c2');
    expect(skipped.map(({ name, reason }) => [name, reason.split(':')[0]])).toEqual([
      ['too_deep', `nested deeper than ${MAX_CATALOG_ITEM_DEPTH} levels`],
      ['bad_schema', 'not a valid MCP tool'],
      ['(not an object)', 'not a valid MCP tool'],
    ]);
  });

  it('fails a page that is not a list at all', () => {
    const result = listPageSchema('prompts/list', () => undefined)['~standard'].validate({ tools: [] });
    expect((result as { issues: Array<{ message: string }> }).issues[0]!.message).toBe('prompts/list result has no prompts array');
  });

  it('measures depth without recursion', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(depthOver(deep, 64)).toBe(true);
    expect(depthOver({ a: { b: { c: 1 } } }, 3)).toBe(false);
    expect(depthOver({ a: { b: { c: {} } } }, 3)).toBe(true);
  });
});
