import { existsSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureFolder } from './ensure-folder.js';
import { STATE_FOLDER_NAME, ensureStateFolder, stateFolder } from './state-folder.js';
import { SessionStore, type SessionStoreOptions } from './session-store.js';

export interface StoreRegistryOptions extends SessionStoreOptions {
  /** One state file for every project (config `agent.stateDb`); ':memory:' keeps nothing. */
  path?: string;
  /** What a relative `path` is resolved against; defaults to the process cwd. */
  baseDir?: string;
}

/** Keeps users from committing agent state: written once beside a new state file. */
const GITIGNORE = '# plaited-agent state: local to this machine\nstate/\nstate.db*\nindex.db*\n';

/**
 * Opens session stores on demand: `<project>/.plaited/state.db` per project, or one
 * fixed file for all when configured. A file is opened once however many times asked for.
 */
export class StoreRegistry {
  private readonly fixedPath: string | undefined;
  private readonly storeOptions: SessionStoreOptions;
  private readonly stores = new Map<string, SessionStore>();
  private readonly prepared = new Set<string>();

  constructor(options: StoreRegistryOptions = {}) {
    const { path, baseDir, ...storeOptions } = options;
    this.fixedPath = path === undefined || path === ':memory:' ? path : resolve(baseDir ?? process.cwd(), path);
    this.storeOptions = storeOptions;
  }

  /** The store that holds sessions whose cwd is `cwd`. */
  forProject(cwd: string): SessionStore {
    // The default place is the project's state folder; made (and older files moved in) once per project.
    if (this.fixedPath === undefined && !this.prepared.has(cwd)) {
      ensureStateFolder(cwd);
      this.prepared.add(cwd);
    }
    return this.open(this.pathFor(cwd));
  }

  /** Where `forProject(cwd)` keeps its sessions. */
  pathFor(cwd: string): string {
    return this.fixedPath ?? join(stateFolder(cwd), 'state.db');
  }

  /** Every store opened so far. */
  all(): SessionStore[] {
    return [...this.stores.values()];
  }

  closeAll(): void {
    for (const store of this.stores.values()) store.close();
    this.stores.clear();
  }

  private open(path: string): SessionStore {
    const cached = this.stores.get(path);
    if (cached?.isOpen) return cached;
    const isNew = path !== ':memory:' && !existsSync(path);
    const store = new SessionStore(path, this.storeOptions);
    if (isNew) writeGitignore(dirname(path));
    this.stores.set(path, store);
    return store;
  }
}

/** Only inside a `.plaited` folder (or its state folder): a configured state file elsewhere is the user's business. */
function writeGitignore(dir: string): void {
  const folder = basename(dir) === STATE_FOLDER_NAME ? dirname(dir) : dir;
  if (basename(folder) !== '.plaited') return;
  const file = join(folder, '.gitignore');
  if (existsSync(file)) return;
  try {
    ensureFolder(folder);
    writeFileSync(file, GITIGNORE, { flag: 'wx' });
  } catch {
    // Best effort: a read-only folder or a racing process writing it first is fine.
  }
}
