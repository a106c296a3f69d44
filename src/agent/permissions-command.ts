import type { ToolPolicyConfig } from '../config/schema.js';
import { StorageError } from '../storage/storage-error.js';
import type { PermissionRuleEntry } from '../storage/permission-rule-file.js';
import type { PermissionContext } from './tool-policy.js';

/** The slash command a client may offer (ACP `available_commands_update`). */
export const PERMISSIONS_COMMAND = {
  name: 'permissions',
  description: 'List the permission rules of this project and session; `/permissions revoke N` removes rule N',
  hint: 'revoke N',
};

const COMMAND = /^\/permissions(?:\s+(.*))?$/s;

/**
 * Answers `/permissions` (the numbered rules: this project's, then this session's, then the
 * config's, which are changed in the config) and `/permissions revoke N`. `undefined` when the
 * prompt is not this command.
 */
export function permissionsCommand(prompt: string, context: { cwd: string; permissions: PermissionContext; config: ToolPolicyConfig }): string | undefined {
  const match = COMMAND.exec(prompt.trim());
  if (!match) return undefined;
  const { cwd, permissions } = context;
  let project: PermissionRuleEntry[];
  try {
    project = permissions.project.list(cwd);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The rules file's own error says already what happens meanwhile and how to fix it.
    return StorageError.isInstance(error) && error.code === 'rules_unreadable' ? message : `${message}\nUntil then, calls that need a permission are asked about.`;
  }
  const numbered = [
    ...project.map((entry) => ({ entry, where: 'project' as const })),
    ...permissions.session.rules.map((entry) => ({ entry, where: 'session' as const })),
  ];
  const argument = match[1]?.trim() ?? '';
  if (argument === '' || argument === 'list') return listing(numbered, context);
  const revoke = /^revoke\s+(\d+)$/.exec(argument);
  const picked = revoke ? numbered[Number(revoke[1]) - 1] : undefined;
  if (!revoke) return `Unknown /permissions argument "${argument}". Use \`/permissions\` to list the rules, \`/permissions revoke N\` to remove rule N.`;
  if (!picked) return `There is no rule ${revoke[1]}: the rules are numbered 1 to ${numbered.length}. Use \`/permissions\` to list them.`;
  if (picked.where === 'session') permissions.session.rules.splice(permissions.session.rules.indexOf(picked.entry), 1);
  else permissions.project.remove(cwd, picked.entry);
  return `Revoked rule ${revoke[1]}: ${picked.entry.effect} ${picked.entry.rule}${ofServer(picked.entry)} (${picked.where}). Such calls are asked about again.`;
}

function listing(
  numbered: Array<{ entry: PermissionRuleEntry; where: 'project' | 'session' }>,
  context: { cwd: string; permissions: PermissionContext; config: ToolPolicyConfig },
): string {
  const lines = [`Permission rules for ${context.cwd} (project rules are kept in ${context.permissions.project.location(context.cwd)}):`];
  if (numbered.length === 0) lines.push('No remembered rules. An "always" or "for this session" answer adds one.');
  numbered.forEach(({ entry, where }, index) => lines.push(`${index + 1}. ${entry.effect} ${entry.rule}${ofServer(entry)} (${where})`));
  const { allow, deny } = context.config;
  if (allow.length + deny.length > 0) {
    lines.push('From the config (change them there):');
    for (const rule of allow) lines.push(`- allow ${rule}`);
    for (const rule of deny) lines.push(`- deny ${rule}`);
  }
  lines.push('Revoke one with `/permissions revoke N`. Protected files always ask; plan mode stays read-only whatever the rules say.');
  return lines.join('\n');
}

/** A rule made for one MCP server says which: another server of that name is asked about. */
function ofServer(entry: PermissionRuleEntry): string {
  return entry.server ? ` from ${entry.server.name} (\`${entry.server.label}\`)` : '';
}
