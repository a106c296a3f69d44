/**
 * What a tool's process (bash, background commands, grep/rg, stdio MCP servers
 * without an env of their own) inherits from the agent's environment: an
 * allow-list of what commands need (see `toolEnvironment`), never everything
 * but a list of bad names. A name list can only miss (`GH_PAT`, `apitoken`,
 * `MONGODB_URI` …); an allow-list fails closed, and a command that needs a
 * credential or a setting is given it on purpose (config `tools.env.passthrough`).
 *
 * The deny classifier (`isSecretEnv`) stays for two jobs where failing open is
 * the lesser harm: choosing what the CLI moves off its own environment block at
 * start (cli/reexec-without-secrets.ts), and refusing to write secret values to
 * logs.
 */

/** Exact names every command may see: paths, identity, locale, terminal, editor, timezone. */
const ALLOWED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'COLUMNS',
  'LINES',
  'TZ',
  'TMPDIR',
  'PWD',
  'EDITOR',
  'VISUAL',
  'PAGER',
  // The agent's own markers (the process tag finds a command's processes; the sandbox markers tell a command where it runs).
  'PLAITED_PROCESS_TAG',
  'PLAITED_SANDBOXED',
  'PLAITED_SANDBOX_ISOLATED',
]);
/** Name prefixes every command may see (locale categories, the XDG base directories). */
const ALLOWED_PREFIXES = ['LC_', 'XDG_'];
/**
 * Proxies commands need to reach the network (the whole-agent sandbox's own among them);
 * passed when the URL carries no credentials, or when it leads to a proxy on this machine
 * (the sandbox's proxy takes a per-run token that opens nothing beyond its allow list).
 */
const PROXY_NAMES = new Set([
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'FTP_PROXY',
  'GRPC_PROXY',
  'RSYNC_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'ftp_proxy',
  'grpc_proxy',
  'SANDBOX_RUNTIME',
]);
const LOOPBACK_URL = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/\s@]+@)?(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])(?::\d+)?(?:\/|$)/i;

/** Whether a command may inherit this variable without being configured to. */
export function isAllowedToolEnv(name: string, value: string): boolean {
  if (PROXY_NAMES.has(name)) return LOOPBACK_URL.test(value) || !isSecretEnv(name, value);
  const allowed = ALLOWED_NAMES.has(name) || ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix));
  return allowed && !isSecretEnv(name, value);
}

/** Words that mark a credential wherever they appear in a name (`apitoken`, `OPENAI_API_KEY_2`, `GITHUB_PERSONAL_ACCESS`). */
const SECRET_WORDS =
  /SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY|AUTH_?TOKEN|TOKEN(?!IZ)|JWT|WEBHOOK|COOKIE|PERSONAL_ACCESS|KEY_?ID\b/;
/** Whole `_`-separated parts that mark a credential (`GH_PAT`, `DOCKER_AUTH_CONFIG`, `DB_PASS`, `SENTRY_DSN`). */
const SECRET_PARTS = new Set(['KEY', 'KEYS', 'PAT', 'PASS', 'PWD', 'AUTH', 'SESSION', 'DSN', 'SIGNATURE', 'SALT', 'OTP']);
/** Connection strings name their credentials in the value (`MONGODB_URI`, `DATABASE_URL`, `REDIS_URL`). */
const CONNECTION_NAME = /(?:^|_)(?:DATABASE|DB|MONGO|MONGODB|POSTGRES|POSTGRESQL|PG|MYSQL|MARIADB|REDIS|AMQP|RABBITMQ|KAFKA|ELASTIC|ELASTICSEARCH|SQL|CONNECTION)(?:_[A-Z0-9]+)*_(?:URI|URL|STRING)$|CONNECTION_?STRING/;
/** Names that match the patterns above but are not credentials (the shell's cwd bookkeeping, desktop plumbing). */
const NOT_SECRET = new Set([
  'PWD',
  'OLDPWD',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_SESSION_CLASS',
  'XDG_SESSION_DESKTOP',
  'DESKTOP_SESSION',
  'DBUS_SESSION_BUS_ADDRESS',
  'SSH_AUTH_SOCK',
  'GPG_AGENT_INFO',
]);
/** A URL with user information (`scheme://user:password@host`, `https://TOKEN@host`). */
const URL_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^/\s@]+@/i;
/** Values shaped like well-known tokens, whatever the variable is called. */
const TOKEN_VALUE = /^(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[\w-]{16,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|glpat-[\w-]{16,}|npm_[A-Za-z0-9]{30,})/;

/** Whether a variable looks like it holds a credential, by its name or (when given) its value. */
export function isSecretEnv(name: string, value?: string): boolean {
  const upper = name.toUpperCase();
  if (value !== undefined && (URL_WITH_CREDENTIALS.test(value) || TOKEN_VALUE.test(value))) return true;
  if (NOT_SECRET.has(upper)) return false;
  if (SECRET_WORDS.test(upper) || CONNECTION_NAME.test(upper)) return true;
  return upper.split('_').some((part) => SECRET_PARTS.has(part));
}

/** Whether a variable name looks like it holds a credential (the name alone). */
export function isSecretEnvName(name: string): boolean {
  return isSecretEnv(name);
}

/** The secret-looking variables set in any of `envs` (valid shell names only, sorted). */
export function secretEnvNames(...envs: Array<Record<string, string | undefined> | undefined>): string[] {
  const names = new Set<string>();
  for (const env of envs) {
    for (const [name, value] of Object.entries(env ?? {})) {
      if (value !== undefined && isSecretEnv(name, value) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) names.add(name);
    }
  }
  return [...names].sort();
}

export interface ToolEnvironmentOptions {
  /** Variables of the agent's environment the user lets through whatever they are (config `tools.env.passthrough`). */
  passthrough?: readonly string[];
  /** Variables the caller sets for this command on purpose (kept, except secret-looking ones not passed through). */
  explicit?: Record<string, string>;
}

/**
 * A tool process's environment: the allowed part of `base` (default: this
 * process's environment), the passed-through names, and the caller's own
 * variables minus secret-looking ones that are not passed through.
 */
export function toolEnvironment(base: NodeJS.ProcessEnv = process.env, options: ToolEnvironmentOptions = {}): Record<string, string> {
  const keep = new Set(options.passthrough ?? []);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (keep.has(name) || isAllowedToolEnv(name, value))) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.explicit ?? {})) {
    if (keep.has(name) || !isSecretEnv(name, value)) env[name] = value;
  }
  return env;
}

/** The names a shell must `unset` to leave only what `toolEnvironment` would keep (valid shell names only, sorted). */
export function secretsToUnset(base: NodeJS.ProcessEnv = process.env, options: ToolEnvironmentOptions = {}): string[] {
  const kept = toolEnvironment(base, options);
  const names = new Set([...Object.keys(base), ...Object.keys(options.explicit ?? {})]);
  return [...names].filter((name) => !(name in kept) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)).sort();
}
