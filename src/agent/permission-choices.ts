import { dirname } from 'node:path';
import { quote } from 'shell-quote';
import type { PermissionOption } from '../contracts/agent-output.js';
import type { AnyTool, ToolOrigin } from '../contracts/tool.js';
import { commandOf, escapeGlob, hostOf, pathsOf } from './permission-rule.js';
import { formatShellPart, splitShellCommand, type ShellPart } from './split-shell-command.js';
import { terminalSafe } from './terminal-safe.js';

/** What choosing an option remembers: rules, for this project (persisted) or this session. */
export interface PermissionChoice {
  option: PermissionOption;
  remember?: { where: 'project' | 'session'; effect: 'allow' | 'deny'; rules: string[]; server?: ToolOrigin };
}

/** Commands that run whatever their arguments say: a prefix of them would cover anything. */
const NO_PREFIX = new Set([
  'sh', 'bash', 'zsh', 'dash', 'fish', 'env', 'sudo', 'doas', 'su', 'xargs', 'eval', 'exec', 'nohup', 'timeout', 'nice',
  'command', 'builtin', 'source', '.', 'python', 'python3', 'node', 'perl', 'ruby', 'deno', 'bun', 'awk', 'find', 'ssh', 'rm',
  'watch', 'script', 'parallel', 'stdbuf', 'chroot', 'setsid', 'flock', 'strace', 'unshare',
]);
const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;

/** A scope of one call, as rules and as the words of a label. */
interface Scope {
  rules: string[];
  label: string;
}

/**
 * The options of one permission question, each labelled with exactly what it covers: the
 * exact command(s) or path(s) of the call, a prefix or folder when one makes sense, the one
 * tool otherwise. A call a rule can never cover (a protected write, a command the splitter
 * cannot follow) gets no "always" option, since none would be honoured.
 */
export function permissionChoices(tool: AnyTool, args: unknown, cwd: string, options: { protectedWrite: boolean }): PermissionChoice[] {
  const once: PermissionChoice = { option: { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' } };
  const reject: PermissionChoice = { option: { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' } };
  const scopes = scopesOf(tool, args, cwd);
  if (!scopes) return [once, reject];
  const { exact, wider } = scopes;
  // A rule for an MCP tool remembers its server: another server given the same name is asked about.
  const server = tool.origin ? { server: tool.origin } : {};
  const choices: PermissionChoice[] = [once];
  if (!options.protectedWrite) {
    choices.push({
      option: { optionId: 'allow-always', name: `Always allow ${exact.label} in this project`, kind: 'allow_always' },
      remember: { where: 'project', effect: 'allow', rules: exact.rules, ...server },
    });
    if (wider) {
      choices.push({
        option: { optionId: wider.optionId, name: `Always allow ${wider.label} in this project`, kind: 'allow_always' },
        remember: { where: 'project', effect: 'allow', rules: wider.rules, ...server },
      });
    }
    choices.push({
      option: { optionId: 'allow-session', name: `Allow ${exact.label} for this session`, kind: 'allow_always' },
      remember: { where: 'session', effect: 'allow', rules: exact.rules, ...server },
    });
  }
  choices.push(reject, {
    option: { optionId: 'reject-always', name: `Always reject ${exact.label} in this project`, kind: 'reject_always' },
    remember: { where: 'project', effect: 'deny', rules: exact.rules, ...server },
  });
  // A label quotes the call: its control characters show, so it says all it covers on any screen.
  return choices.map((choice) => ({ ...choice, option: { ...choice.option, name: terminalSafe(choice.option.name) } }));
}

function scopesOf(tool: AnyTool, args: unknown, cwd: string): { exact: Scope; wider?: Scope & { optionId: string } } | undefined {
  const command = commandOf(tool, args);
  if (command !== undefined) {
    const parts = splitShellCommand(command);
    if (!parts) return undefined;
    const spelled = [...new Set(parts.map(formatShellPart))];
    const exact = { rules: spelled.map((text) => `bash(${text})`), label: listOf(spelled.map((text) => `\`${text}\``)) };
    const prefix = parts.length === 1 ? prefixOf(parts[0]!) : undefined;
    if (!prefix) return { exact };
    return { exact, wider: { optionId: 'allow-always-prefix', rules: [`bash(${prefix}:*)`], label: `commands starting with \`${prefix}\`` } };
  }
  const paths = pathsOf(tool, args, cwd);
  if (paths && paths.length > 0) {
    const exact = { rules: paths.map((path) => `${tool.name}(${escapeGlob(path)})`), label: `\`${tool.name}\` on ${listOf(paths.map((path) => `\`${path}\``))}` };
    const folders = [...new Set(paths.map((path) => dirname(path)))];
    if (folders.length !== 1 || folders[0] === '/') return { exact };
    const folder = folders[0]!;
    const wider =
      folder === '.'
        ? { rules: [`${tool.name}(**)`], label: `\`${tool.name}\` anywhere in the project folder (\`**\`; protected files still ask)` }
        : { rules: [`${tool.name}(${escapeGlob(folder)}/**)`], label: `\`${tool.name}\` in \`${folder}/\` and its subfolders` };
    return { exact, wider: { optionId: 'allow-always-folder', ...wider } };
  }
  const host = hostOf(tool, args);
  if (host) return { exact: { rules: [`${tool.name}(domain:${host})`], label: `\`${tool.name}\` of \`${host}\` URLs` } };
  const from = tool.origin ? ` from ${tool.origin.name} (\`${tool.origin.label}\`)` : '';
  return { exact: { rules: [tool.name], label: `\`${tool.name}\` (any arguments)${from}` } };
}

/** `npm test` for `npm test --watch`; none where a prefix would cover any command. */
function prefixOf(part: ShellPart): string | undefined {
  const [first, second] = part.words;
  if (!first || NO_PREFIX.has(first) || part.writesFile || first.includes('/') || first.includes('=')) return undefined;
  return quote(second !== undefined && SUBCOMMAND.test(second) ? [first, second] : [first]);
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
