import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IndexDocument } from '../../src/retrieval/search-index.js';

/** The small catalog of test/fixtures/retrieval/catalog.json: tools, a prompt and a skill. */
export function fixtureCatalog(): IndexDocument[] {
  const path = fileURLToPath(new URL('../fixtures/retrieval/catalog.json', import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as IndexDocument[];
}

export function byNamespace(documents: readonly IndexDocument[]): Map<string, IndexDocument[]> {
  const groups = new Map<string, IndexDocument[]>();
  for (const document of documents) groups.set(document.namespace, [...(groups.get(document.namespace) ?? []), document]);
  return groups;
}
