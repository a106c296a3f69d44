import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { SessionStore } from '../../src/storage/session-store.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreRegistry } from '../../src/storage/store-registry.js';

describe('StoreRegistry', () => {
  let dir: string;
  let registry: StoreRegistry;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaited-registry-'));
  });
  afterEach(() => {
    registry?.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens <cwd>/.plaited/state/state.db lazily, once per project', () => {
    registry = new StoreRegistry();
    const projectA = join(dir, 'a');
    const projectB = join(dir, 'b');
    expect(registry.all()).toEqual([]);
    expect(existsSync(join(projectA, '.plaited'))).toBe(false);

    const a = registry.forProject(projectA);
    // In the state folder no tool reaches (issue 21 item 11), readable by its owner only.
    expect(a.path).toBe(join(projectA, '.plaited', 'state', 'state.db'));
    expect(statSync(join(projectA, '.plaited', 'state')).mode & 0o777).toBe(0o700);
    expect(existsSync(a.path)).toBe(true);
    // Same project spelled differently: the same open store.
    expect(registry.forProject(join(projectA, 'sub', '..'))).toBe(a);
    const b = registry.forProject(projectB);
    expect(b).not.toBe(a);
    expect(registry.all()).toEqual([a, b]);

    a.createSession({ sessionId: 'only-in-a', cwd: projectA });
    expect(b.getSession('only-in-a')).toBeUndefined();
  });

  it('moves the state an older version kept in .plaited/ into .plaited/state/, sessions and all', () => {
    const project = join(dir, 'old');
    mkdirSync(join(project, '.plaited'), { recursive: true });
    const old = new SessionStore(join(project, '.plaited', 'state.db'));
    old.createSession({ sessionId: 'from-before', cwd: project });
    old.close();
    writeFileSync(join(project, '.plaited', 'index.db'), 'index bytes');

    registry = new StoreRegistry();
    const store = registry.forProject(project);
    expect(store.getSession('from-before')).toBeDefined();
    expect(existsSync(join(project, '.plaited', 'state.db'))).toBe(false);
    expect(readFileSync(join(project, '.plaited', 'state', 'index.db'), 'utf8')).toBe('index bytes');
  });

  it('writes .plaited/.gitignore next to a new state file, and never overwrites one', () => {
    registry = new StoreRegistry();
    const fresh = join(dir, 'fresh');
    registry.forProject(fresh);
    const ignore = readFileSync(join(fresh, '.plaited', '.gitignore'), 'utf8');
    expect(ignore.split('\n')).toEqual(expect.arrayContaining(['state.db*', 'index.db*']));

    const own = join(dir, 'own');
    mkdirSync(join(own, '.plaited'), { recursive: true });
    writeFileSync(join(own, '.plaited', '.gitignore'), 'custom\n');
    registry.forProject(own);
    expect(readFileSync(join(own, '.plaited', '.gitignore'), 'utf8')).toBe('custom\n');
  });

  it('uses one fixed file for every project when given a path (resolved against baseDir)', () => {
    registry = new StoreRegistry({ path: 'state/all.db', baseDir: dir });
    const a = registry.forProject(join(dir, 'a'));
    const b = registry.forProject(join(dir, 'b'));
    expect(a).toBe(b);
    expect(a.path).toBe(join(dir, 'state', 'all.db'));
    expect(registry.pathFor('/anywhere')).toBe(a.path);
    // Not a .plaited folder: no .gitignore dropped into the user's chosen folder.
    expect(existsSync(join(dir, 'state', '.gitignore'))).toBe(false);
    a.createSession({ sessionId: 's1', cwd: join(dir, 'a') });
    a.createSession({ sessionId: 's2', cwd: join(dir, 'b') });
    expect(b.listSessions({ cwd: join(dir, 'b') }).map((s) => s.sessionId)).toEqual(['s2']);
  });

  it('supports an in-memory store and reopens stores after closeAll', () => {
    registry = new StoreRegistry({ path: ':memory:' });
    const memory = registry.forProject(dir);
    expect(memory.journalMode()).toBe('memory');
    expect(existsSync(join(dir, '.plaited'))).toBe(false);

    const onDisk = new StoreRegistry();
    const first = onDisk.forProject(dir);
    first.createSession({ sessionId: 'kept', cwd: dir });
    onDisk.closeAll();
    expect(first.isOpen).toBe(false);
    expect(onDisk.all()).toEqual([]);
    const again = onDisk.forProject(dir);
    expect(again).not.toBe(first);
    expect(again.getSession('kept')).toMatchObject({ sessionId: 'kept' });
    onDisk.closeAll();
  });
});
