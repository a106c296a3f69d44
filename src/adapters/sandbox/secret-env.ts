/**
 * Environment variables that look like credentials (`OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, …). A sandboxed command
 * does not get them: the agent's own key must not be one `env` away from the
 * model, and a command that needs a credential should be given it on purpose.
 */
const SECRET_NAME = /(?:^|_)(?:API_?KEY|ACCESS_?KEY|SECRET(?:_ACCESS_KEY|_KEY)?|TOKEN|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_KEY|AUTH)$/i;

export function secretEnvNames(...envs: Array<Record<string, string | undefined> | undefined>): string[] {
  const names = new Set<string>();
  for (const env of envs) {
    for (const name of Object.keys(env ?? {})) {
      if (SECRET_NAME.test(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) names.add(name);
    }
  }
  return [...names].sort();
}
