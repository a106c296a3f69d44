import { resolve } from 'node:path';
import type { Agent } from '../../agent/agent.js';
import type { PlaitedConfig } from '../../config/schema.js';
import { defaultConfig } from '../../config/default-config.js';
import type { AgentAdapter } from '../agent-adapter.js';
import { createNetworkAuth, type NetworkAuth } from '../http/network-auth.js';
import { loadSkillPrompts } from '../mcp-server/skill-prompts.js';
import { A2aAgentExecutor } from './a2a-agent-executor.js';
import { serveA2aHttp, type A2aHttpServer } from './a2a-http-server.js';
import { inheritedListenFd } from './inherited-listener.js';
import { TaskBusManager } from './task-bus-manager.js';
import { openA2aTasks } from './open-a2a-tasks.js';
import { agentVersion } from '../agent-version.js';

export interface A2aAdapterOptions {
  /** The agent's version, for the card. */
  version?: string;
  /** The `adapters.a2a` settings (card, limits, origins, input timeout); the defaults when absent (named for its face, like ACP's `acpSettings`). */
  a2aSettings?: PlaitedConfig['adapters']['a2a'];
  /** Where the task records live (config `agent.stateDb`); default `<cwd>/.plaited/state.db`. */
  stateDb?: string;
  /** Where the skills the card lists are found (config `skills`); the defaults when absent. */
  skills?: PlaitedConfig['skills'];
  /** Bind address and port; `settings` when absent. */
  host?: string;
  port?: number;
  /** Who may call: the process's shared network auth (the CLI's). Default: a bearer token from `authToken`, generated and logged when absent; `noAuth` only on loopback. */
  networkAuth?: (host: string) => NetworkAuth;
  /** This replica's route name behind a balancer (`Plaited-Replica`); default: host name and port. */
  replicaId?: string;
  authToken?: string;
  noAuth?: boolean;
  /** The project the A2A sessions work in (default: the process cwd). */
  cwd?: string;
  /** How often (ms) a replica on a shared store looks for tasks of replicas that stopped; default 3 s. */
  sweepMs?: number;
  /** Told the endpoint once listening. */
  onListening?: (server: A2aHttpServer) => void;
  log?: (message: string) => void;
}

export interface A2aServer {
  url: string;
  cardUrl: string;
  closed: Promise<void>;
  close(): Promise<void>;
}

/** The agent as an Agent2Agent peer: an agent card and JSON-RPC (A2A 1.0 and 0.3) over HTTP. */
export const a2aAdapter: AgentAdapter<A2aAdapterOptions, A2aServer> = {
  name: 'a2a',
  async wrap(agent: Agent, options: A2aAdapterOptions = {}) {
    const settings = options.a2aSettings ?? defaultConfig().adapters.a2a;
    const cwd = resolve(options.cwd ?? process.cwd());
    const host = options.host ?? settings.host;
    const auth = options.networkAuth?.(host) ?? createNetworkAuth({ token: options.authToken, noAuth: options.noAuth, host, log: options.log });
    let executor: A2aAgentExecutor | undefined;
    const tasks = await openA2aTasks(agent, { cwd, stateDb: options.stateDb, sweepMs: options.sweepMs, runsHere: (taskId) => executor?.runsHere(taskId) ?? false, log: options.log });
    const { records, taskStore, interrupted, close } = tasks;
    executor = new A2aAgentExecutor(agent, records, taskStore, {
      cwd,
      inputTimeoutMs: settings.inputTimeoutMs,
      onSessionTaken: (owner, contextId) => interrupted.endDead({ owner, contextId }),
      runsElsewhere: (task) => interrupted.runsElsewhere(task),
      log: options.log,
    });
    const skills = await loadSkillPrompts(options.skills ?? defaultConfig().skills, cwd);
    let server: A2aHttpServer;
    try {
      server = await serveA2aHttp({
        host,
        port: options.port ?? settings.port,
        listenFd: inheritedListenFd(),
        auth,
        executor,
        taskStore,
        buses: new TaskBusManager(records, taskStore, options.log),
        allowedOrigins: settings.allowedOrigins,
        maxMessageBytes: settings.maxMessageBytes,
        maxJsonDepth: settings.maxJsonDepth,
        card: {
          version: agentVersion(options.version),
          ...settings.card,
          skills: skills.map((skill) => ({ name: skill.name, description: skill.description })),
        },
        log: options.log,
        ready: async () => {
          await agent.ready?.();
          await records.ready();
        },
        ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
        ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
      });
    } catch (error) {
      await close();
      throw error;
    }
    options.onListening?.(server);
    void server.closed.finally(() => close());
    return { url: server.url, cardUrl: server.cardUrl, closed: server.closed, close: () => server.close() };
  },
};

