/**
 * Environment variables that look like credentials (`OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, `PLAITED_API_KEY`, …).
 * No tool's process gets them by default, sandboxed or not: the agent's own key
 * must not be one `env` away from the model, and a command that needs a
 * credential is given it on purpose (config `tools.env.passthrough`).
 */
const SECRET_NAME =
  /(?:^|_)(?:API_?KEY|ACCESS_?KEY|KEY|SECRET(?:_ACCESS_KEY|_KEY)?|SECRETS|TOKEN|TOKENS|PASSWORD|PASSWD|PASS|PASSPHRASE|PWD_SECRET|CREDENTIALS?|PRIVATE_KEY|AUTH|AUTH_HEADER|COOKIE|SESSION)$/i;
/** Names that end like a secret but are not one (the shell's own cwd bookkeeping, terminal keys). */
const NOT_SECRET = new Set(['PWD', 'OLDPWD', 'XDG_SESSION_ID', 'XDG_SESSION_TYPE', 'XDG_SESSION_CLASS', 'XDG_SESSION_DESKTOP', 'DESKTOP_SESSION', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO']);
/** Whole names of well-known credentials that the suffixes above miss. */
const KNOWN_SECRETS = /^(?:AWS_SESSION_TOKEN|GOOGLE_APPLICATION_CREDENTIALS|NPM_CONFIG__AUTH|NODE_AUTH_TOKEN|DATABASE_URL|PGPASSWORD|MYSQL_PWD|REDIS_URL|SENTRY_DSN|.*_DSN|.*_CONNECTION_STRING)$/i;

/** Whether a variable name looks like it holds a credential. */
export function isSecretEnvName(name: string): boolean {
  if (NOT_SECRET.has(name.toUpperCase())) return false;
  return SECRET_NAME.test(name) || KNOWN_SECRETS.test(name);
}

/** The secret-looking names set in any of `envs` (valid shell names only, sorted). */
export function secretEnvNames(...envs: Array<Record<string, string | undefined> | undefined>): string[] {
  const names = new Set<string>();
  for (const env of envs) {
    for (const name of Object.keys(env ?? {})) {
      if (isSecretEnvName(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) names.add(name);
    }
  }
  return [...names].sort();
}

export interface ToolEnvironmentOptions {
  /** Secret-looking names the user lets through (config `tools.env.passthrough`). */
  passthrough?: readonly string[];
  /** Variables the caller adds for this command (scrubbed like the rest). */
  explicit?: Record<string, string>;
}

/** `base` (default: this process's environment) plus `explicit`, without secrets other than the passed-through ones. */
export function toolEnvironment(base: NodeJS.ProcessEnv = process.env, options: ToolEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const keep = new Set(options.passthrough ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries({ ...base, ...options.explicit })) {
    if (value !== undefined && (keep.has(name) || !isSecretEnvName(name))) env[name] = value;
  }
  return env;
}

/** The names a shell must `unset` to leave only what `toolEnvironment` would keep. */
export function secretsToUnset(base: NodeJS.ProcessEnv = process.env, options: ToolEnvironmentOptions = {}): string[] {
  const keep = new Set(options.passthrough ?? []);
  return secretEnvNames(base, options.explicit).filter((name) => !keep.has(name));
}
