import type { IndexDocument, SyncReport } from './search-index.js';
import type { ExistingRow } from './index-statements.js';
import { documentHash } from './content-hash.js';

/** A document to (re)write, with the hash of what is indexed from it. */
export interface HashedDocument {
  document: IndexDocument;
  hash: string;
}

/**
 * Which wanted documents are new, changed or unchanged against their stored rows (a row
 * without a vector counts as changed when `needsVector`). Matched rows are taken out of
 * `existing`: what remains there is stored but no longer wanted.
 */
export function diffDocuments(
  wanted: readonly IndexDocument[],
  existing: Map<string, ExistingRow>,
  options: { needsVector: boolean },
): { report: SyncReport; changed: HashedDocument[] } {
  const report: SyncReport = { added: 0, updated: 0, removed: 0, unchanged: 0 };
  const changed: HashedDocument[] = [];
  for (const document of wanted) {
    const row = existing.get(document.id);
    existing.delete(document.id);
    const hash = documentHash(document);
    if (row && row.hash === hash && (!options.needsVector || row.has_vector)) report.unchanged++;
    else {
      changed.push({ document, hash });
      if (row) report.updated++;
      else report.added++;
    }
  }
  return { report, changed };
}
