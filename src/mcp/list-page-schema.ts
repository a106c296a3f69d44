import { specTypeSchemas } from '@modelcontextprotocol/client';
import type { McpListMethod } from './list-all-pages.js';

/** An item of a listed catalog nested deeper than this (in JSON levels) is skipped: validating, compiling or indexing it would exhaust the stack. */
export const MAX_CATALOG_ITEM_DEPTH = 64;

/** One listed item left out of a catalog, and why. */
export interface SkippedCatalogItem {
  method: McpListMethod;
  /** The item's name (or URI), when it has one. */
  name: string;
  reason: string;
}

const PAGES = {
  'tools/list': { key: 'tools', item: specTypeSchemas.Tool },
  'resources/list': { key: 'resources', item: specTypeSchemas.Resource },
  'resources/templates/list': { key: 'resourceTemplates', item: specTypeSchemas.ResourceTemplate },
  'prompts/list': { key: 'prompts', item: specTypeSchemas.Prompt },
} as const;

type StandardResult = { value: unknown; issues?: undefined } | { issues: ReadonlyArray<{ message: string }> };

/**
 * The result schema of one page of a list verb (a Standard Schema the MCP client takes in place
 * of its own): the page's shape is checked, then each item on its own, so one tool whose schema
 * nests thousands of levels deep (or is otherwise malformed) is skipped and reported through
 * `onSkip`, instead of failing the page and with it the server's whole catalog.
 */
export function listPageSchema(method: McpListMethod, onSkip: (item: SkippedCatalogItem) => void) {
  const { key, item } = PAGES[method];
  const validate = (value: unknown): StandardResult => {
    if (!isObject(value) || !Array.isArray(value[key])) return { issues: [{ message: `${method} result has no ${key} array` }] };
    if (value.nextCursor !== undefined && typeof value.nextCursor !== 'string') return { issues: [{ message: `${method} nextCursor must be a string` }] };
    const kept: unknown[] = [];
    for (const candidate of value[key] as unknown[]) {
      const name = itemName(candidate);
      if (depthOver(candidate, MAX_CATALOG_ITEM_DEPTH)) {
        onSkip({ method, name, reason: `nested deeper than ${MAX_CATALOG_ITEM_DEPTH} levels` });
        continue;
      }
      const checked = item['~standard'].validate(candidate) as StandardResult;
      if (checked.issues) onSkip({ method, name, reason: `not a valid MCP ${key.replace(/s$/, '')}: ${checked.issues[0]?.message ?? 'invalid'}` });
      else kept.push(checked.value);
    }
    return { value: { ...value, [key]: kept } };
  };
  return { '~standard': { version: 1 as const, vendor: 'plaited-agent', validate } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function itemName(candidate: unknown): string {
  if (!isObject(candidate)) return '(not an object)';
  const name = candidate.name ?? candidate.uri ?? candidate.uriTemplate;
  return typeof name === 'string' ? name.slice(0, 200) : '(unnamed)';
}

/** Whether `value` nests deeper than `limit` levels, measured without recursion. */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
