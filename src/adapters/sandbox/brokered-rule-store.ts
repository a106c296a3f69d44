import { sameRuleEntry, type PermissionRuleEntry, type PermissionRuleStore } from '../../storage/permission-rule-file.js';
import { errorMessage } from '../../errors/error-message.js';
import type { BrokerClient } from './broker-client.js';

const same = (a: PermissionRuleEntry, b: PermissionRuleEntry) => sameRuleEntry(a, b);

/**
 * Project rules for an agent inside the whole-agent sandbox, where the user's folder is
 * read-only: read from the file as usual, written by the launcher (command-broker.ts), which
 * runs outside the sandbox. A change counts at once in this process; until the launcher has
 * written it (or when it could not) it is kept in memory, so it holds for the session.
 */
export function brokeredRuleStore(file: PermissionRuleStore, broker: BrokerClient, warn: (message: string) => void): PermissionRuleStore {
  const added: Array<{ project: string; entry: PermissionRuleEntry }> = [];
  const removed: Array<{ project: string; entry: PermissionRuleEntry }> = [];
  const forget = (list: typeof added, item: (typeof added)[number]) => {
    const index = list.indexOf(item);
    if (index >= 0) list.splice(index, 1);
  };
  const send = (op: 'add' | 'remove', list: typeof added, item: (typeof added)[number]) => {
    broker.rule(op, item.project, item.entry).then(
      () => forget(list, item),
      (error: unknown) => warn(`could not save the permission rule ${item.entry.effect} ${item.entry.rule} for ${item.project} (${errorMessage(error)}); it holds for this session only`),
    );
  };
  return {
    location: (project) => file.location(project),
    list(project) {
      const rules = file.list(project).filter((entry) => !removed.some((item) => item.project === project && same(item.entry, entry)));
      for (const item of added) if (item.project === project && !rules.some((entry) => same(entry, item.entry))) rules.push(item.entry);
      return rules;
    },
    add(project, entry) {
      const stamped = { ...entry, added: entry.added ?? new Date().toISOString() };
      for (const item of removed.filter((candidate) => candidate.project === project && same(candidate.entry, entry))) forget(removed, item);
      const item = { project, entry: stamped };
      added.push(item);
      send('add', added, item);
    },
    remove(project, entry) {
      const present = this.list(project).some((candidate) => same(candidate, entry));
      if (!present) return false;
      for (const item of added.filter((candidate) => candidate.project === project && same(candidate.entry, entry))) forget(added, item);
      const item = { project, entry };
      removed.push(item);
      send('remove', removed, item);
      return true;
    },
  };
}
