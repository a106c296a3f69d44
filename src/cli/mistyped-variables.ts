import { closestName } from '../config/closest-name.js';

/**
 * Every variable plaited-agent reads. The ones it sets for itself (the sandbox's and the
 * launcher's descriptors) are here too, so that none of them is taken for a typo.
 */
export const KNOWN_VARIABLES: readonly string[] = [
  'PLAITED_API_KEY',
  'PLAITED_AUTH_TOKEN',
  'PLAITED_STORE',
  'PLAITED_REPLICA_ID',
  'PLAITED_MODELS_DIR',
  'PLAITED_LOG_FILE_MAX_BYTES',
  'PLAITED_DOWNLOAD_CONNECT_TIMEOUT_MS',
  'PLAITED_DOWNLOAD_READ_TIMEOUT_MS',
  'PLAITED_PROCESS_TAG',
  'PLAITED_SANDBOX_ISOLATED',
  'PLAITED_SANDBOXED',
  'PLAITED_SECRETS_FD',
  'PLAITED_LIFELINE_FD',
  'PLAITED_BROKER_FD',
  'PLAITED_A2A_LISTEN_FD',
  'PLAITED_LAYER_COMMAND',
  'PLAITED_SANDBOX_PIDS_CGROUP',
];

/**
 * A warning for each variable in `env` that is a typo of one plaited-agent reads
 * (`PLAITED_STOR`, `PLAITD_STORE`): it would be ignored without a word, and a replica meant for
 * the shared PostgreSQL store would keep its sessions in a SQLite file of its own. Variables
 * near no known name are someone else's and pass unremarked, and so does a typo in the first three letters.
 */
export function mistypedVariables(env: NodeJS.ProcessEnv): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    // Every start runs this over the whole environment: only a name that starts as ours do and is
    // about as long as one of them is measured (the distance over every variable cost ~20 ms of CPU).
    if (KNOWN_VARIABLES.includes(name) || !/^pla/i.test(name) || !KNOWN_VARIABLES.some((known) => Math.abs(known.length - name.length) <= 2)) continue;
    const meant = closestName(name, KNOWN_VARIABLES);
    if (meant !== undefined && env[meant] === undefined) warnings.push(`${name} is not a variable plaited-agent reads (it is ignored): did you mean ${meant}?`);
  }
  return warnings;
}
