import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/context/context-error.js';
import { RelationStore, type RelationSnapshot } from '../../src/context/relation-store.js';

type Data = { content: string };

function diamond(onPersist?: (snapshot: RelationSnapshot<Data>) => void): RelationStore<Data> {
  //   a
  //  / \
  // b   c
  //  \ /
  //   d   (d has two parents)
  const store = new RelationStore<Data>({ onPersist });
  store.add({ id: 'a', type: 'goal', status: 'pending', data: { content: 'ship it' } });
  store.add({ id: 'b', type: 'task', status: 'completed', parents: ['a'], data: { content: 'write code' } });
  store.add({ id: 'c', type: 'task', status: 'pending', parents: ['a'], data: { content: 'write docs' } });
  store.add({ id: 'd', type: 'task', status: 'in_progress', parents: ['b', 'c'], data: { content: 'review' } });
  return store;
}

function ids(nodes: Array<{ id: string }>): string[] {
  return nodes.map((node) => node.id);
}

describe('RelationStore', () => {
  it('answers ancestors, descendants, roots, leaves, by type and by status over a multi-parent DAG', () => {
    const store = diamond();
    expect(ids(store.ancestors('d'))).toEqual(['a', 'b', 'c']);
    expect(ids(store.descendants('a'))).toEqual(['b', 'c', 'd']);
    expect(ids(store.roots())).toEqual(['a']);
    expect(ids(store.leaves())).toEqual(['d']);
    expect(ids(store.byType('task'))).toEqual(['b', 'c', 'd']);
    expect(ids(store.byStatus('pending'))).toEqual(['a', 'c']);
    expect(ids(store.children('a'))).toEqual(['b', 'c']);
  });

  it('refuses an edge that would close a cycle and leaves the graph as it was', () => {
    const store = diamond();
    const before = store.snapshot();
    let error: unknown;
    try {
      store.link('a', 'd');
    } catch (caught) {
      error = caught;
    }
    expect(ContextError.isInstance(error) && error.code).toBe('cycle');
    expect(() => store.update('b', { parents: ['b'] })).toThrow(/cycle/);
    expect(store.wouldCycle('a', 'd')).toBe(true);
    expect(store.wouldCycle('d', 'a')).toBe(false);
    expect(store.snapshot()).toEqual(before);
  });

  it('refuses unknown parents and duplicate ids', () => {
    const store = diamond();
    expect(() => store.add({ id: 'e', type: 'task', status: 'pending', parents: ['nope'], data: { content: '' } })).toThrow(/does not exist/);
    expect(() => store.add({ id: 'a', type: 'task', status: 'pending', data: { content: '' } })).toThrow(/already exists/);
  });

  it('a failed transaction changes nothing; a good one persists once', async () => {
    const snapshots: RelationSnapshot<Data>[] = [];
    const store = diamond((snapshot) => snapshots.push(snapshot));
    await store.flush();
    const persisted = snapshots.length;
    expect(() =>
      store.transaction((draft) => {
        draft.add({ id: 'e', type: 'task', status: 'pending', parents: ['d'], data: { content: 'deploy' } });
        draft.link('a', 'e');
      }),
    ).toThrow(/cycle/);
    expect(store.has('e')).toBe(false);
    store.transaction((draft) => {
      draft.add({ id: 'e', type: 'task', status: 'pending', parents: ['d'], data: { content: 'deploy' } });
      draft.remove('c');
    });
    await store.flush();
    expect(snapshots.length).toBe(persisted + 1);
    expect(ids(store.ancestors('e'))).toEqual(['a', 'b', 'd']);
  });

  it('removing a node keeps its children under their other parents', () => {
    const store = diamond();
    store.remove('b');
    expect(store.get('d')?.parents).toEqual(['c']);
  });

  it('renders nodes with their ancestors for a prompt', () => {
    const store = diamond();
    expect(store.toContext(['c'])).toBe('- [pending] a (goal): ship it\n- [pending] c (task): write docs ← a');
  });

  it('persists every change and reloads from a snapshot, refusing a cyclic one', async () => {
    const snapshots: RelationSnapshot<Data>[] = [];
    const store = diamond((snapshot) => snapshots.push(JSON.parse(JSON.stringify(snapshot))));
    await store.flush();
    expect(snapshots).toHaveLength(4);
    const reloaded = new RelationStore<Data>({ initial: snapshots[3] });
    expect(ids(reloaded.ancestors('d'))).toEqual(['a', 'b', 'c']);
    const cyclic = JSON.parse(JSON.stringify(snapshots[3])) as RelationSnapshot<Data>;
    cyclic.nodes[0].parents = ['d'];
    expect(() => new RelationStore<Data>({ initial: cyclic })).toThrow(/cycle/);
  });
});
