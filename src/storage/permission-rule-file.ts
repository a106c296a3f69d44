import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureFolder } from './ensure-folder.js';
import { readTextHeadSync } from './read-text-head.js';
import { StorageError } from './storage-error.js';
import type { ToolOrigin } from '../contracts/tool.js';

/** One remembered answer: a rule (`bash(npm test:*)`, `write_file(src/**)`) and what it does. */
export interface PermissionRuleEntry {
  rule: string;
  effect: 'allow' | 'deny';
  /** When it was added (ISO time), for the person reading the file. */
  added?: string;
  /**
   * The MCP server the answer was for: the rule covers that server's tools only, not another
   * server given the same name. Absent on rules written before (they match by name, as then).
   */
  server?: ToolOrigin;
}

/** The same remembered rule: same words, effect and server. */
export function sameRuleEntry(a: PermissionRuleEntry, b: PermissionRuleEntry): boolean {
  return a.rule === b.rule && a.effect === b.effect && a.server?.key === b.server?.key;
}

/** Where a project's remembered rules live. `project` is an absolute folder. */
export interface PermissionRuleStore {
  list(project: string): PermissionRuleEntry[];
  add(project: string, entry: PermissionRuleEntry): void;
  /** Removes the first entry with this rule and effect; false when there was none. */
  remove(project: string, entry: PermissionRuleEntry): boolean;
  /** Where the rules are kept, said to the user (`/permissions`). */
  location(project: string): string;
}

/**
 * Project rules in the user's own folder, one file per project:
 * `<dir>/projects/<sha256 of the project path>/permissions.json`, holding the project path for
 * the person reading it. Read on every use, so a hand edit takes effect at once; written whole
 * and renamed into place. Outside the project, so no tool of the agent is pointed at it.
 */
export function createPermissionRuleFile(dir: string): PermissionRuleStore {
  const fileOf = (project: string) => join(dir, 'projects', createHash('sha256').update(resolve(project)).digest('hex'), 'permissions.json');

  const list = (project: string): PermissionRuleEntry[] => {
    const file = fileOf(project);
    let text: string;
    try {
      const head = readTextHeadSync(file, MAX_RULES_FILE_BYTES);
      if (head.truncated) throw new Error(`${head.size} bytes, over ${MAX_RULES_FILE_BYTES}`);
      text = head.text;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new StorageError('rules_unreadable', `Cannot read the permission rules in ${file}: ${(error as Error).message}. ${RULES_FIX(file)}`, { path: file, cause: error });
    }
    return parseRules(text, file);
  };

  const save = (project: string, rules: PermissionRuleEntry[]) => {
    const file = fileOf(project);
    ensureFolder(join(file, '..'));
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ project: resolve(project), rules }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  };

  return {
    list,
    location: fileOf,
    add(project, entry) {
      const rules = list(project);
      if (rules.some((rule) => sameRuleEntry(rule, entry))) return;
      save(project, [...rules, { ...entry, added: entry.added ?? new Date().toISOString() }]);
    },
    remove(project, entry) {
      const rules = list(project);
      const index = rules.findIndex((rule) => sameRuleEntry(rule, entry));
      if (index < 0) return false;
      rules.splice(index, 1);
      save(project, rules);
      return true;
    },
  };
}

/** Read on every call that asks: a larger file is no rules file (and a pipe is never waited on). */
const MAX_RULES_FILE_BYTES = 16 * 1024 * 1024;

/**
 * What to do about a rules file that cannot be used. Never "delete it": it holds every rule the
 * user remembered; the agent leaves it as it is and asks about each call meanwhile.
 */
const RULES_FIX = (file: string) =>
  `Until it is fixed, calls that need a permission are asked about and new rules hold for the session only; the file is left as it is. Fix it, or move it aside (mv "${file}" "${file}.damaged") to start this project's remembered rules afresh.`;

function parseRules(text: string, file: string): PermissionRuleEntry[] {
  const fail = (why: string) =>
    new StorageError('rules_unreadable', `The permission rules in ${file} are not valid: ${why}. ${RULES_FIX(file)}`, { path: file });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail((error as Error).message);
  }
  const rules = (value as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) throw fail('expected { "project": "...", "rules": [...] }');
  return rules.map((entry, index) => {
    const { rule, effect, added, server } = (entry ?? {}) as Record<string, unknown>;
    if (typeof rule !== 'string' || rule.length === 0 || (effect !== 'allow' && effect !== 'deny')) {
      throw fail(`rules[${index}] needs a "rule" string and an "effect" of "allow" or "deny"`);
    }
    if (server !== undefined && !isOrigin(server)) throw fail(`rules[${index}].server needs "key", "name" and "label" strings`);
    return { rule, effect, ...(typeof added === 'string' ? { added } : {}), ...(server ? { server } : {}) };
  });
}

function isOrigin(value: unknown): value is ToolOrigin {
  const { key, name, label } = (value ?? {}) as Record<string, unknown>;
  return typeof key === 'string' && key.length > 0 && typeof name === 'string' && typeof label === 'string';
}
