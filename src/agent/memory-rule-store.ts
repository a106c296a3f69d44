import { resolve } from 'node:path';
import { sameRuleEntry, type PermissionRuleEntry, type PermissionRuleStore } from '../storage/permission-rule-file.js';

/** Project rules kept in memory, for an agent built without a rules file (they end with the process). */
export function createMemoryRuleStore(): PermissionRuleStore {
  const byProject = new Map<string, PermissionRuleEntry[]>();
  const rulesOf = (project: string) => {
    const key = resolve(project);
    let rules = byProject.get(key);
    if (!rules) byProject.set(key, (rules = []));
    return rules;
  };
  return {
    list: (project) => [...rulesOf(project)],
    location: () => 'memory (this process only)',
    add(project, entry) {
      const rules = rulesOf(project);
      if (!rules.some((rule) => sameRuleEntry(rule, entry))) rules.push(entry);
    },
    remove(project, entry) {
      const rules = rulesOf(project);
      const index = rules.findIndex((rule) => sameRuleEntry(rule, entry));
      if (index >= 0) rules.splice(index, 1);
      return index >= 0;
    },
  };
}
