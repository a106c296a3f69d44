import type { PlaitedConfig } from '../config/schema.js';
import type { CliArgs } from './parse-cli-args.js';

/**
 * The replica's route name for every HTTP face: `--replica-id`, else `PLAITED_REPLICA_ID`, else
 * config `server.replicaId`; absent, the HTTP core derives one from host name and port (and
 * checks a given one).
 */
export function replicaIdOption(config: PlaitedConfig, args: CliArgs, env: NodeJS.ProcessEnv = process.env): { replicaId?: string } {
  const replicaId = args.replicaId ?? (env.PLAITED_REPLICA_ID || undefined) ?? config.server.replicaId;
  return replicaId === undefined ? {} : { replicaId };
}
