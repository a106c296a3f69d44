import { resolve } from 'node:path';
import type { SpawnStdioServer } from '../../mcp/spawned-stdio-transport.js';
import { brokerClient } from './broker-client.js';

/**
 * Inside the whole-agent sandbox with the launcher's command broker: stdio MCP servers are
 * started by the launcher, each in a sandbox of its own (the agent's walls, its state hidden,
 * a pid namespace of its own), like the agent's commands; their pipes are relayed over the
 * broker's channel. `undefined` elsewhere: the MCP client spawns them itself.
 */
export function brokeredStdioSpawner(): SpawnStdioServer | undefined {
  const broker = brokerClient();
  if (!broker) return undefined;
  return (command, handlers) =>
    broker.spawn([command.command, ...command.args], { cwd: resolve(command.cwd ?? process.cwd()), ...(command.env ? { env: command.env } : {}) }, handlers);
}
