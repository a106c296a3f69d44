import type { SearchIndex } from './search-index.js';

/**
 * The index, calling `notify` once, before its first search: for something worth saying
 * only when discovery actually runs (e.g. that it runs without an embedder).
 */
export function notifyFirstSearch(index: SearchIndex, notify: () => void): SearchIndex {
  let notified = false;
  return {
    sync: (namespace, documents) => index.sync(namespace, documents),
    upsert: (documents) => index.upsert(documents),
    remove: (ids) => index.remove(ids),
    removeNamespace: (namespace) => index.removeNamespace(namespace),
    get: (id) => index.get(id),
    close: () => index.close(),
    search(query, options) {
      if (!notified) {
        notified = true;
        notify();
      }
      return index.search(query, options);
    },
  };
}
