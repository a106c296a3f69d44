import type { IndexDocument } from './search-index.js';
import { RetrievalError } from './retrieval-error.js';

/**
 * The documents of one write, checked and with duplicate ids collapsed (the last one wins,
 * as a registry that lists a tool twice means its latest definition).
 */
export function validDocuments(documents: readonly IndexDocument[]): IndexDocument[] {
  const byId = new Map<string, IndexDocument>();
  for (const document of documents) {
    if (typeof document.id !== 'string' || document.id === '' || typeof document.fields?.name !== 'string') {
      throw new RetrievalError('INVALID_DOCUMENT', 'a document needs a non-empty id and a name', {
        context: { id: document.id },
      });
    }
    byId.set(document.id, document);
  }
  return [...byId.values()];
}
