import { ContextError } from './context-error.js';

/**
 * A multi-parent DAG of nodes with a type and a status: the structure behind plans
 * (and anything else that is "items depending on items"). Edges point from a node to
 * its parents; a change that would close a cycle is refused with a `cycle` error and
 * leaves the store untouched. Every successful change calls `onPersist` with a plain
 * JSON snapshot, so the owner decides where it lives (a file, the session store).
 */
export interface RelationNode<T = unknown> {
  id: string;
  type: string;
  status: string;
  /** Ids of the nodes this one depends on / belongs under. */
  parents: string[];
  data: T;
  createdAt: number;
  updatedAt: number;
}

export interface RelationSnapshot<T = unknown> {
  version: 1;
  nodes: RelationNode<T>[];
}

export interface NewRelationNode<T> {
  id: string;
  type: string;
  status: string;
  parents?: readonly string[];
  data: T;
}

export interface RelationNodePatch<T> {
  type?: string;
  status?: string;
  parents?: readonly string[];
  data?: T;
}

export interface RelationStoreOptions<T> {
  initial?: RelationSnapshot<T>;
  /** Called after every change with the whole graph; errors it throws are the caller's. */
  onPersist?(snapshot: RelationSnapshot<T>): void | Promise<void>;
  now?(): number;
}

export class RelationStore<T = unknown> {
  private readonly nodes = new Map<string, RelationNode<T>>();
  private readonly onPersist: RelationStoreOptions<T>['onPersist'];
  private readonly now: () => number;
  /** The last persist, so callers (and tests) can wait for the write to land. */
  private pending: Promise<void> = Promise.resolve();

  constructor(options: RelationStoreOptions<T> = {}) {
    this.onPersist = options.onPersist;
    this.now = options.now ?? Date.now;
    for (const node of options.initial?.nodes ?? []) this.nodes.set(node.id, { ...node, parents: [...node.parents] });
    for (const node of this.nodes.values()) {
      for (const parent of node.parents) {
        if (!this.nodes.has(parent)) throw new ContextError('unknown-node', `snapshot node "${node.id}" names a missing parent "${parent}"`, { details: { id: node.id, parent } });
      }
    }
    const cycle = this.findCycle();
    if (cycle) throw new ContextError('cycle', `snapshot contains a cycle: ${cycle.join(' → ')}`, { details: { cycle } });
  }

  get size(): number {
    return this.nodes.size;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  get(id: string): RelationNode<T> | undefined {
    const node = this.nodes.get(id);
    return node && clone(node);
  }

  /** All nodes in insertion order. */
  all(): RelationNode<T>[] {
    return [...this.nodes.values()].map(clone);
  }

  add(node: NewRelationNode<T>): RelationNode<T> {
    if (this.nodes.has(node.id)) throw new ContextError('duplicate-node', `node "${node.id}" already exists`, { details: { id: node.id } });
    const parents = this.checkParents(node.id, node.parents ?? []);
    const time = this.now();
    const created: RelationNode<T> = { id: node.id, type: node.type, status: node.status, parents, data: node.data, createdAt: time, updatedAt: time };
    this.nodes.set(node.id, created);
    this.persist();
    return clone(created);
  }

  update(id: string, patch: RelationNodePatch<T>): RelationNode<T> {
    const node = this.require(id);
    const parents = patch.parents ? this.checkParents(id, patch.parents) : node.parents;
    const updated: RelationNode<T> = {
      ...node,
      type: patch.type ?? node.type,
      status: patch.status ?? node.status,
      data: patch.data === undefined ? node.data : patch.data,
      parents,
      updatedAt: this.now(),
    };
    this.nodes.set(id, updated);
    this.persist();
    return clone(updated);
  }

  /** Adds one edge (child depends on parent). */
  link(childId: string, parentId: string): void {
    const child = this.require(childId);
    if (child.parents.includes(parentId)) return;
    this.update(childId, { parents: [...child.parents, parentId] });
  }

  unlink(childId: string, parentId: string): void {
    const child = this.require(childId);
    if (!child.parents.includes(parentId)) return;
    this.update(childId, { parents: child.parents.filter((id) => id !== parentId) });
  }

  /**
   * Applies several changes at once: `change` works on a draft copy, and only when it
   * returns without throwing does the store take the draft's state (and persist once).
   */
  transaction<R>(change: (draft: RelationStore<T>) => R): R {
    const draft = new RelationStore<T>({ initial: this.snapshot(), now: this.now });
    const result = change(draft);
    this.nodes.clear();
    for (const node of draft.all()) this.nodes.set(node.id, node);
    this.persist();
    return result;
  }

  /** Removes a node and every edge to it; its children keep their other parents. */
  remove(id: string): void {
    this.require(id);
    this.nodes.delete(id);
    for (const node of this.nodes.values()) {
      if (node.parents.includes(id)) node.parents = node.parents.filter((parent) => parent !== id);
    }
    this.persist();
  }

  /** True when adding the edge child → parent would close a cycle. */
  wouldCycle(childId: string, parentId: string): boolean {
    return childId === parentId || this.ancestorIds(parentId).has(childId);
  }

  ancestors(id: string): RelationNode<T>[] {
    this.require(id);
    return this.ordered(this.ancestorIds(id));
  }

  descendants(id: string): RelationNode<T>[] {
    this.require(id);
    const found = new Set<string>();
    const stack = [id];
    while (stack.length) {
      const current = stack.pop() as string;
      for (const node of this.nodes.values()) {
        if (node.parents.includes(current) && !found.has(node.id)) {
          found.add(node.id);
          stack.push(node.id);
        }
      }
    }
    return this.ordered(found);
  }

  children(id: string): RelationNode<T>[] {
    return [...this.nodes.values()].filter((node) => node.parents.includes(id)).map(clone);
  }

  /** Nodes with no parents. */
  roots(): RelationNode<T>[] {
    return [...this.nodes.values()].filter((node) => node.parents.length === 0).map(clone);
  }

  /** Nodes nothing depends on. */
  leaves(): RelationNode<T>[] {
    const parentIds = new Set([...this.nodes.values()].flatMap((node) => node.parents));
    return [...this.nodes.values()].filter((node) => !parentIds.has(node.id)).map(clone);
  }

  byType(type: string): RelationNode<T>[] {
    return [...this.nodes.values()].filter((node) => node.type === type).map(clone);
  }

  byStatus(status: string): RelationNode<T>[] {
    return [...this.nodes.values()].filter((node) => node.status === status).map(clone);
  }

  /** Every node, parents before children, ties in insertion order. */
  topological(): RelationNode<T>[] {
    const order: RelationNode<T>[] = [];
    const done = new Set<string>();
    const visit = (node: RelationNode<T>): void => {
      if (done.has(node.id)) return;
      done.add(node.id);
      for (const parent of node.parents) visit(this.nodes.get(parent) as RelationNode<T>);
      order.push(clone(node));
    };
    for (const node of this.nodes.values()) visit(node);
    return order;
  }

  /**
   * A compact text view of the given nodes and their ancestors, for a prompt: one line per
   * node, `- [status] id (type): summary ← parents`. All nodes when `ids` is omitted.
   */
  toContext(ids?: readonly string[], summarize: (node: RelationNode<T>) => string = defaultSummary): string {
    let wanted: Set<string>;
    if (ids === undefined) wanted = new Set(this.nodes.keys());
    else {
      wanted = new Set<string>();
      for (const id of ids) {
        this.require(id);
        wanted.add(id);
        for (const ancestor of this.ancestorIds(id)) wanted.add(ancestor);
      }
    }
    return this.ordered(wanted)
      .map((node) => `- [${node.status}] ${node.id} (${node.type}): ${summarize(node)}${node.parents.length ? ` ← ${node.parents.join(', ')}` : ''}`)
      .join('\n');
  }

  snapshot(): RelationSnapshot<T> {
    return { version: 1, nodes: this.all() };
  }

  /** Resolves when the latest `onPersist` call has finished (rejects if it failed). */
  flush(): Promise<void> {
    return this.pending;
  }

  private persist(): void {
    if (!this.onPersist) return;
    const snapshot = this.snapshot();
    const onPersist = this.onPersist;
    // Chain writes so a slow earlier write never lands after a later one.
    this.pending = this.pending.catch(() => undefined).then(() => onPersist(snapshot));
  }

  private require(id: string): RelationNode<T> {
    const node = this.nodes.get(id);
    if (!node) throw new ContextError('unknown-node', `no node "${id}"`, { details: { id } });
    return node;
  }

  private checkParents(id: string, parents: readonly string[]): string[] {
    const unique = [...new Set(parents)];
    for (const parent of unique) {
      if (!this.nodes.has(parent)) throw new ContextError('unknown-node', `parent "${parent}" of "${id}" does not exist`, { details: { id, parent } });
      if (this.wouldCycle(id, parent)) {
        throw new ContextError('cycle', `making "${parent}" a parent of "${id}" would create a cycle`, { details: { id, parent } });
      }
    }
    return unique;
  }

  private ancestorIds(id: string): Set<string> {
    const found = new Set<string>();
    const stack = [...(this.nodes.get(id)?.parents ?? [])];
    while (stack.length) {
      const current = stack.pop() as string;
      if (found.has(current)) continue;
      found.add(current);
      stack.push(...(this.nodes.get(current)?.parents ?? []));
    }
    return found;
  }

  private ordered(ids: Set<string>): RelationNode<T>[] {
    return this.topological().filter((node) => ids.has(node.id));
  }

  private findCycle(): string[] | undefined {
    const state = new Map<string, 'visiting' | 'done'>();
    const path: string[] = [];
    const visit = (id: string): string[] | undefined => {
      if (state.get(id) === 'done') return undefined;
      if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
      state.set(id, 'visiting');
      path.push(id);
      for (const parent of this.nodes.get(id)?.parents ?? []) {
        const cycle = visit(parent);
        if (cycle) return cycle;
      }
      path.pop();
      state.set(id, 'done');
      return undefined;
    };
    for (const id of this.nodes.keys()) {
      const cycle = visit(id);
      if (cycle) return cycle;
    }
    return undefined;
  }
}

function clone<T>(node: RelationNode<T>): RelationNode<T> {
  return { ...node, parents: [...node.parents] };
}

function defaultSummary(node: RelationNode<unknown>): string {
  const data = node.data as { content?: unknown; title?: unknown } | null;
  if (data && typeof data === 'object') {
    if (typeof data.content === 'string') return data.content;
    if (typeof data.title === 'string') return data.title;
  }
  return JSON.stringify(node.data);
}
