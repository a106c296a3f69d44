import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PlanEntry } from '../contracts/agent-output.js';
import { RelationStore, type RelationSnapshot } from './relation-store.js';

/**
 * One plan per session, each a RelationStore kept in
 * `<cwd>/.plaited/plans/<sessionId>.json` so the plan tool's state survives a restart.
 * (What the client sees after `session/load` comes from the stored `plan` events the core
 * replays; this file is what lets the model keep editing the same plan afterwards.)
 */
export interface PlanItemData {
  content: string;
  priority: PlanEntry['priority'];
}

export type PlanStatus = PlanEntry['status'];

export interface SessionPlansOptions {
  /** Where a session's plan file lives; default `<cwd>/.plaited/plans/<sessionId>.json`. */
  filePath?(sessionId: string, cwd: string): string;
}

export class SessionPlans {
  private readonly stores = new Map<string, Promise<RelationStore<PlanItemData>>>();
  private readonly filePath: (sessionId: string, cwd: string) => string;

  constructor(options: SessionPlansOptions = {}) {
    this.filePath = options.filePath ?? ((sessionId, cwd) => join(cwd, '.plaited', 'plans', `${safeFileName(sessionId)}.json`));
  }

  /** The session's plan, loaded from its file the first time it is asked for. */
  get(sessionId: string, cwd: string): Promise<RelationStore<PlanItemData>> {
    let store = this.stores.get(sessionId);
    if (!store) {
      store = this.open(this.filePath(sessionId, cwd));
      // A failed load must not stick: the next call tries again.
      store.catch(() => this.stores.delete(sessionId));
      this.stores.set(sessionId, store);
    }
    return store;
  }

  /** Forgets the in-memory copy (the file stays). */
  async release(sessionId: string): Promise<void> {
    const store = this.stores.get(sessionId);
    this.stores.delete(sessionId);
    await store?.then((loaded) => loaded.flush()).catch(() => undefined);
  }

  /** Waits for every pending plan write. */
  async flush(): Promise<void> {
    await Promise.all([...this.stores.values()].map((store) => store.then((loaded) => loaded.flush())));
  }

  private async open(file: string): Promise<RelationStore<PlanItemData>> {
    let initial: RelationSnapshot<PlanItemData> | undefined;
    try {
      initial = JSON.parse(await readFile(file, 'utf8')) as RelationSnapshot<PlanItemData>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') await setAside(file);
    }
    const onPersist = async (snapshot: RelationSnapshot<PlanItemData>) => {
      await mkdir(dirname(file), { recursive: true });
      // Write then rename, so a crash mid-write never leaves half a plan.
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(snapshot, null, 2)}\n`);
      await rename(temporary, file);
    };
    try {
      return new RelationStore<PlanItemData>({ initial, onPersist });
    } catch {
      // A plan file that parses but is not a valid plan: keep it aside, start a fresh plan.
      await setAside(file);
      return new RelationStore<PlanItemData>({ onPersist });
    }
  }
}

/** An unreadable plan file is kept (never deleted) under a `.corrupt` name, so a session's turns still work. */
async function setAside(file: string): Promise<void> {
  await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
}

/** The plan as ACP entries: parents before children, in the order items were added. */
export function planEntries(store: RelationStore<PlanItemData>): PlanEntry[] {
  return store.topological().map((node) => ({
    content: node.data.content,
    priority: node.data.priority,
    status: node.status as PlanStatus,
  }));
}

function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_');
}
