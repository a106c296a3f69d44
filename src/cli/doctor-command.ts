import { parseArgs } from 'node:util';
import { errorMessage } from '../errors/error-message.js';
import { openEmbedder } from '../model/open-embedder.js';
import { checkModel } from './check-model.js';
import { checkPrograms } from './check-programs.js';
import { checkStateStore } from './check-state-store.js';
import { checkPostgresStore } from './check-postgres-store.js';
import { doctorLine, type DoctorCheck } from './doctor-check.js';
import { mcpServerStates, serverFix, serverIsUp } from './mcp-server-states.js';
import { openProjectAgent } from './open-project-agent.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { Log } from './stderr-log.js';
import { usageProblem } from './usage-problem.js';

/** The flags of `plaited-agent doctor`. */
const OPTIONS = { config: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, store: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export const DOCTOR_USAGE = `Usage: plaited-agent doctor [--config PATH] [--model SPEC] [--base-url URL] [--store URL]

Checks what the agent needs here: Node, rg, bwrap, socat, setpriv, the model (reachable, key
accepted, model served), the embedder, each configured MCP server (starts, lists tools) and the
state store (writable, schema version; the PostgreSQL one when --store, PLAITED_STORE or
storage.url names it: it answers, and its user may create the schema). One line each, ✓ or ✗ with
the fix; exit 1 when any failed.
`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `plaited-agent doctor`: prints each check as it completes; resolves to the exit code. */
export async function runDoctorCommand(argv: readonly string[], cwd: string, streams: Streams, log: Log): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: OPTIONS }));
  } catch (error) {
    streams.stderr.write(`plaited-agent doctor: ${usageProblem(error, OPTIONS, 'plaited-agent doctor --help')}\n\n${DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    streams.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  let failed = 0;
  const show = (check: DoctorCheck) => {
    if (!check.ok) failed++;
    streams.stdout.write(`${doctorLine(check)}\n`);
  };
  checkPrograms().forEach(show);
  let project;
  try {
    project = await openProjectAgent({ cwd, configPath: values.config, ...(values.store ? { store: values.store } : {}), log });
  } catch (error) {
    show({ name: 'config', ok: false, detail: errorMessage(error), fix: 'correct the config file named above' });
    return 1;
  }
  const { agent, untrusted, path, trustStoreDamaged } = project;
  const config = { ...project.config, agent: { ...project.config.agent, ...(values.model ? { model: values.model } : {}), ...(values['base-url'] ? { baseURL: values['base-url'] } : {}) } };
  show(untrusted === undefined ? { name: 'config', ok: true, detail: path ?? 'none (defaults; plaited-agent init writes one)' } : { name: 'config', ok: false, detail: untrusted, fix: trustStoreDamaged ? 'repair, restore or move aside the trust file named above' : 'plaited-agent trust (after reading it)' });
  try {
    // The slow checks (an HTTP listing, loading the embedder, starting the MCP servers) run side by
    // side; their lines still come out in this order. The MCP servers' states start first: the
    // registry's own embedder and the embedder check then share one loaded model.
    const servers = mcpServerStates(agent, config, 20_000);
    const model = checkModel(config, cwd);
    const embedder = checkEmbedder(config, cwd);
    for (const pending of [servers, model, embedder]) pending.catch(() => undefined); // awaited below, in order
    show(await model);
    show(await embedder);
    const states = await servers;
    if (states.length === 0) show({ name: 'mcp servers', ok: true, detail: 'none configured' });
    for (const server of states) {
      const ok = serverIsUp(server);
      show({ name: `mcp ${server.id}`, ok, detail: ok ? `${server.state}, ${server.tools} tools` : `${server.state}${server.lastError ? `: ${server.lastError}` : ''}`, fix: serverFix(server) });
    }
    show(config.storage.url === undefined ? checkStateStore(cwd, config.agent.stateDb) : await checkPostgresStore(agent, config.storage.url));
  } finally {
    await agent.stop().catch(() => undefined);
  }
  streams.stdout.write(failed === 0 ? 'All checks passed.\n' : `${failed} check${failed === 1 ? '' : 's'} failed.\n`);
  return failed === 0 ? 0 : 1;
}

/** The configured embedder loads and reports its dimensions (then it is closed again). */
async function checkEmbedder(config: PlaitedConfig, cwd: string): Promise<DoctorCheck> {
  const embedder = await openEmbedder(config, cwd);
  try {
    return embedder.embedder
      ? { name: 'embedder', ok: true, detail: `${config.embedder.model} (${await embedder.embedder.dimensions()} dimensions)` }
      : { name: 'embedder', ok: false, detail: `${config.embedder.model}: ${embedder.unavailable}`, fix: 'let it download once (network), or set embedder.model to a local GGUF; without it tool search uses keywords alone' };
  } finally {
    await embedder.embedder?.close?.();
  }
}
