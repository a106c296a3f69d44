import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PlanEntry } from '../contracts/agent-output.js';
import { readTextHead } from '../storage/read-text-head.js';
import { RelationStore, type RelationSnapshot } from './relation-store.js';
import { ensureFolderAsync } from '../storage/ensure-folder.js';

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
  /** Told when a plan file that cannot be read is moved aside (the plan starts afresh): the CLI logs it. */
  onSetAside?(file: string, aside: string, why: string): void;
}

/** A plan file larger than this is no plan the tool wrote: it is set aside unread. */
const MAX_PLAN_FILE_BYTES = 16 * 1024 * 1024;

export class SessionPlans {
  private readonly stores = new Map<string, Promise<RelationStore<PlanItemData>>>();
  private readonly filePath: (sessionId: string, cwd: string) => string;
  private readonly onSetAside: SessionPlansOptions['onSetAside'];

  constructor(options: SessionPlansOptions = {}) {
    this.onSetAside = options.onSetAside;
    this.filePath = options.filePath ?? planFilePath;
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

  /** Gives `to` the plan `from` has now (a fork): written to its file before the fork's first turn reads it. */
  async copy(from: { sessionId: string; cwd: string }, to: { sessionId: string; cwd: string }): Promise<void> {
    const snapshot = (await this.get(from.sessionId, from.cwd)).snapshot();
    if (snapshot.nodes.length === 0) return;
    await writePlanFile(this.filePath(to.sessionId, to.cwd), snapshot);
  }

  /** A deleted session's plan: forgotten, and its file removed (after any write still pending). */
  async remove(sessionId: string, cwd: string): Promise<void> {
    await this.release(sessionId);
    await rm(this.filePath(sessionId, cwd), { force: true });
  }

  /** Waits for every pending plan write. */
  async flush(): Promise<void> {
    await Promise.all([...this.stores.values()].map((store) => store.then((loaded) => loaded.flush())));
  }

  /** An unreadable plan file is kept (never deleted) under a `.corrupt` name, so a session's turns still work; and said. */
  private async setAside(file: string, why: string): Promise<void> {
    const aside = `${file}.corrupt-${Date.now()}`;
    try {
      await rename(file, aside);
    } catch {
      return;
    }
    this.onSetAside?.(file, aside, why);
  }

  private async open(file: string): Promise<RelationStore<PlanItemData>> {
    let initial: RelationSnapshot<PlanItemData> | undefined;
    try {
      const head = await readTextHead(file, MAX_PLAN_FILE_BYTES);
      if (head.truncated) throw new Error(`${head.size} bytes, over ${MAX_PLAN_FILE_BYTES}`);
      initial = JSON.parse(head.text) as RelationSnapshot<PlanItemData>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') await this.setAside(file, (error as Error).message);
    }
    const onPersist = (snapshot: RelationSnapshot<PlanItemData>) => writePlanFile(file, snapshot);
    try {
      return new RelationStore<PlanItemData>({ initial, onPersist });
    } catch {
      // A plan file that parses but is not a valid plan: keep it aside, start a fresh plan.
      await this.setAside(file, 'not a plan');
      return new RelationStore<PlanItemData>({ onPersist });
    }
  }
}


/** Write then rename, so a crash mid-write never leaves half a plan. */
async function writePlanFile(file: string, snapshot: RelationSnapshot<PlanItemData>): Promise<void> {
  await ensureFolderAsync(dirname(file));
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(snapshot, null, 2)}\n`);
  await rename(temporary, file);
}

/** The plan as ACP entries: parents before children, in the order items were added. */
export function planEntries(store: RelationStore<PlanItemData>): PlanEntry[] {
  return store.topological().map((node) => ({
    content: node.data.content,
    priority: node.data.priority,
    status: node.status as PlanStatus,
  }));
}

/** Where a session's plan lives by default: `<cwd>/.plaited/plans/<sessionId>.json`. */
export function planFilePath(sessionId: string, cwd: string): string {
  return join(cwd, '.plaited', 'plans', `${safeFileName(sessionId)}.json`);
}

function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_');
}
