import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchSkillRoots } from '../../src/context/watch-skill-roots.js';
import { withPatchedFs, watchAtTheLimit } from '../helpers/patched-fs.js';
import { waitFor } from '../helpers/wait-for.js';

const writeSkill = (folder: string) => {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'SKILL.md'), '---\nname: review\ndescription: Reviews a change.\n---\nRead the diff.\n');
};

/**
 * Runs `start` while `fs.existsSync` lets `racer` act right after it answers for `path`: another
 * process's `mkdir` or `rm` landing between the watcher's look and its watch, a window of
 * microseconds that a loaded machine hits now and then.
 */
function withRace<T>(path: string, racer: (found: boolean) => void, start: () => T): { value: T; raced: boolean } {
  const realExists = fs.existsSync;
  let raced = false;
  const existsSync = (candidate: fs.PathLike) => {
    const found = realExists(candidate);
    if (!raced && candidate === path) {
      raced = true;
      racer(found);
    }
    return found;
  };
  const value = withPatchedFs({ existsSync }, start);
  return { value, raced };
}

describe('watchSkillRoots', () => {
  it('a root made by mkdir -p after the start is watched, and a skill written there later is seen', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-skill-watch-'));
    let changes = 0;
    const stop = watchSkillRoots([join(cwd, '.claude', 'skills')], () => changes++);
    try {
      mkdirSync(join(cwd, '.claude', 'skills', 'review'), { recursive: true });
      await waitFor(() => changes > 0, 10_000, 'the new root noticed');
      const seen = changes;
      writeSkill(join(cwd, '.claude', 'skills', 'review'));
      await waitFor(() => changes > seen, 10_000, 'the skill written in the new root');
    } finally {
      stop();
    }
  });

  it('a root made between the look for it and the watch of its parent is still watched', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-skill-watch-'));
    const root = join(cwd, '.claude', 'skills');
    mkdirSync(join(cwd, '.claude'));
    let changes = 0;
    const { value: stop, raced } = withRace(root, (found) => found || mkdirSync(root), () => watchSkillRoots([root], () => changes++));
    try {
      expect(raced).toBe(true);
      await waitFor(() => changes > 0, 10_000, 'the root made during the start noticed');
      const seen = changes;
      writeSkill(join(root, 'review'));
      await waitFor(() => changes > seen, 10_000, 'the skill written in it');
    } finally {
      stop();
    }
  });

  it('a root the system will not watch (its watch limit reached) is named once, not skipped in silence', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-skill-watch-'));
    const root = join(cwd, 'skills');
    mkdirSync(root);
    const told: string[] = [];
    const stop = withPatchedFs({ watch: watchAtTheLimit }, () => watchSkillRoots([root, root], () => undefined, (unwatched, cause) => told.push(`${unwatched}: ${cause}`)));
    stop();
    expect(told).toEqual([`${root}: ENOSPC: System limit for number of file watchers reached, watch`]);
  });

  it('a root removed between the look and its watch is watched for its return', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-skill-watch-'));
    const root = join(cwd, '.claude', 'skills');
    mkdirSync(root, { recursive: true });
    let changes = 0;
    const { value: stop, raced } = withRace(root, (found) => found && rmSync(root, { recursive: true }), () => watchSkillRoots([root], () => changes++));
    try {
      expect(raced).toBe(true);
      writeSkill(join(root, 'review'));
      await waitFor(() => changes > 0, 10_000, 'the root made again, with a skill');
    } finally {
      stop();
    }
  });
});
