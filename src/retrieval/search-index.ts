/**
 * The contract of the one hybrid index (SQLite FTS5 + in-memory vectors, see vector-matrix.ts) that every discovery
 * module uses: MCP tools/resources/prompts, skills, rule links, memory pages, episodes.
 * Implemented in hybrid-index.ts.
 */
export interface IndexDocument {
  /** Unique within the index, e.g. `tool:mcp__github__create_issue`. */
  id: string;
  /** What it is: `tool`, `resource`, `prompt`, `skill`, `reference`, `rule`, `memory`, `episode`, … */
  kind: string;
  /** A group of documents that sync together (an MCP server id, a skills root). */
  namespace: string;
  fields: {
    name: string;
    title?: string;
    description?: string;
    /** Argument names and their descriptions, flattened. */
    args?: string;
    /** The description of the group (an MCP server's own description/instructions). */
    group?: string;
    /** Free text body (memory pages, episodes). */
    body?: string;
  };
  /** Opaque JSON kept with the document and handed back on search. */
  payload?: unknown;
}

export type SearchMode = 'hybrid' | 'bm25' | 'dense';

export interface SearchOptions {
  limit?: number;
  kinds?: readonly string[];
  namespaces?: readonly string[];
  mode?: SearchMode;
  signal?: AbortSignal;
}

export interface SearchHit {
  id: string;
  score: number;
  document: IndexDocument;
}

export interface SyncReport {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
}

export interface SearchIndex {
  /**
   * Makes the namespace hold exactly `documents`: unchanged ones (by content hash) cost
   * nothing, changed ones are re-embedded, missing ones are removed.
   */
  sync(namespace: string, documents: readonly IndexDocument[]): Promise<SyncReport>;
  /** Adds or replaces documents without touching others in their namespace. */
  upsert(documents: readonly IndexDocument[]): Promise<SyncReport>;
  remove(ids: readonly string[]): void;
  removeNamespace(namespace: string): void;
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  get(id: string): IndexDocument | undefined;
  close(): void;
}
