import type { A2aAdapterOptions } from '../adapters/a2a/a2a-adapter.js';
import { isWildcardHost } from '../adapters/http/wildcard-host.js';
import type { NetworkAuth } from '../adapters/http/network-auth.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { CliArgs } from './parse-cli-args.js';
import { replicaIdOption } from './replica-id-option.js';
import type { Log } from './stderr-log.js';

/**
 * The A2A adapter's options from flags and config. `--host`/`--port` go to A2A only when no
 * other face listens on the network (with `--transport http` they are the ACP or MCP face's;
 * A2A then uses config `adapters.a2a`). Auth is the process's shared network auth.
 */
export function a2aOptions(config: PlaitedConfig, args: CliArgs, log: Log, version: string, networkAuth?: (host: string) => NetworkAuth): A2aAdapterOptions {
  const settings = config.adapters.a2a;
  const sharedFlags = args.transport !== 'http';
  const host = (sharedFlags ? args.host : undefined) ?? settings.host;
  return {
    version,
    a2aSettings: settings,
    ...(config.agent.stateDb ? { stateDb: config.agent.stateDb } : {}),
    skills: config.skills,
    host,
    port: (sharedFlags ? args.port : undefined) ?? settings.port,
    ...(networkAuth ? { networkAuth } : {}),
    ...replicaIdOption(config, args),
    log: (message) => log('info', message),
    onListening: (server) => {
      log('info', `A2A at ${server.url} (REST ${server.restUrl}, agent card ${server.cardUrl})`);
      // Peers call the URLs the card names: bound for other machines, the card must name one they reach.
      if (isWildcardHost(host) && !settings.publicUrl) {
        log('warn', `A2A listens on every address (${host}), but its agent card names ${server.url}, which peers on other machines cannot reach: set adapters.a2a.publicUrl to the origin they use (https://agent.example.com, or http://<this host>:${new URL(server.url).port})`);
      }
    },
  };
}
