import { parseArgs } from 'node:util';
import { errorMessage } from '../errors/error-message.js';
import { mcpServerStates, serverFix, serverIsUp } from './mcp-server-states.js';
import { openProjectAgent } from './open-project-agent.js';
import type { Log } from './stderr-log.js';
import { usageProblem } from './usage-problem.js';

/** The flags of `plaited-agent mcp`. */
const OPTIONS = { format: { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export const MCP_USAGE = `Usage: plaited-agent mcp list [--format text|json] [--config PATH]

Starts each MCP server the project's config names, as a session would, and lists it: its state
(connected, failed, reconnecting, disabled), how many tools it offers, and its last error.
Exits 1 when a server that is not disabled did not connect (named on stderr, as doctor does).
`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `plaited-agent mcp list`: resolves to the exit code. */
export async function runMcpCommand(argv: readonly string[], cwd: string, streams: Streams, log: Log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    streams.stderr.write(`plaited-agent mcp: ${usageProblem(error, OPTIONS, 'plaited-agent mcp --help')}\n\n${MCP_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    streams.stdout.write(MCP_USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'list' || (values.format !== undefined && values.format !== 'text' && values.format !== 'json')) {
    streams.stderr.write(`plaited-agent mcp: ${positionals[0] === 'list' ? '--format is text or json' : 'the command is mcp list'}\n\n${MCP_USAGE}`);
    return 2;
  }
  const { agent, config, untrusted } = await openProjectAgent({ cwd, configPath: values.config, log });
  if (untrusted !== undefined) log('warn', untrusted);
  try {
    const servers = await mcpServerStates(agent, config, 20_000);
    if (values.format === 'json') streams.stdout.write(`${JSON.stringify(servers, null, 2)}\n`);
    else if (servers.length === 0) streams.stdout.write('No MCP servers configured (mcp.servers in .plaited/config.ts).\n');
    else {
      const width = Math.max(...servers.map((server) => server.id.length));
      for (const server of servers) {
        streams.stdout.write(`${server.id.padEnd(width)}  ${server.state.padEnd(12)}  ${`${server.tools} tools`.padEnd(9)}${server.lastError ? `  ${server.lastError}` : ''}\n`);
      }
    }
    // As doctor: a server that is not up fails the command (a script or CI step sees it).
    const down = servers.filter((server) => !serverIsUp(server));
    for (const server of down) {
      streams.stderr.write(`plaited-agent mcp: server ${server.id} is ${server.state}${server.lastError ? `: ${server.lastError}` : ''}; ${serverFix(server)}\n`);
    }
    return down.length === 0 ? 0 : 1;
  } catch (error) {
    streams.stderr.write(`plaited-agent mcp: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    await agent.stop().catch(() => undefined);
  }
}
