import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentAdapter } from '../adapters/agent-adapter.js';
import type { CustomAdapterOptions } from '../adapters/custom-adapter-options.js';
import type { Agent } from '../agent/agent.js';
import { adapterSectionIssues } from '../config/adapter-section-issues.js';
import { ConfigError } from '../config/config-error.js';
import { formatInvalid, loadConfig } from '../config/load-config.js';
import { shadowedConfigWarning } from '../config/shadowed-config-files.js';
import { parentProjectConfigWarning } from '../config/parent-project-config.js';
import { checkPrintRules } from './check-print-rules.js';
import { mistypedVariables } from './mistyped-variables.js';
import { unknownConfigToolRules } from './unknown-tool-rule.js';
import { ownPackageJson } from '../config/own-package-json.js';
import type { PlaitedConfig } from '../config/schema.js';
import { modelSource } from '../agent/model-source.js';
import { useProcessLedger } from '../tools/process-ledger.js';
import { ensureStateFolder } from '../storage/state-folder.js';
import { sessionStoreUrl } from './session-store-url.js';
import { createMemoryReclaimer } from './memory-reclaimer.js';
import { commandLineToken, networkAuthSource } from './network-auth-source.js';
import { sessionNotice } from './session-notice.js';
import { checkModelSpec } from '../model/check-model-spec.js';
import { parseCliArgs, USAGE, type CliArgs } from './parse-cli-args.js';
import { CHAT_USAGE } from './parse-chat-args.js';
import type { Log } from './stderr-log.js';
import { cliLog } from './cli-log.js';
import { terminalSafe } from '../agent/terminal-safe.js';
import { adapterResultError, adapterStartFailure, adapterStopMessage } from './adapter-start-error.js';
import { configSecrets } from './config-secrets.js';
import { logToolCalls } from './log-tool-calls.js';
import { telemetryEnabled } from './telemetry-enabled.js';
import { unsupportedOtelExporters } from './unsupported-otel-exporters.js';
import { a2aOptions } from './a2a-options.js';
import { replicaIdOption } from './replica-id-option.js';
import { acpSettingsFromConfig } from '../adapters/acp/acp-agent-settings.js';
import { checkStoreAtStart } from './check-store-at-start.js';

/**
 * The sandbox's network namespace has no route to a database (its proxies carry HTTP for allowed
 * domains only): said at start, instead of a store that never opens.
 */
const SANDBOXED_STORE =
  'the whole-agent sandbox (--adapter sandbox, adapters.sandbox.enabled) cannot reach the PostgreSQL store of --store / PLAITED_STORE / storage.url: it has no network of its own. Sandbox each command instead (adapters.sandbox.commands: true, the agent outside), or leave the store unset for SQLite';

/** flags → config → agent → adapter(s). Resolves to the process exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    // The one line that says what is wrong, not buried above 67 lines of usage that scroll it away.
    process.stderr.write(`plaited-agent: ${(error as Error).message}\nRun plaited-agent --help for the options and commands.\n`);
    return 2;
  }
  // Asked-for output goes to stdout (so `--help | less` works); errors stay on stderr.
  if (args.help) {
    process.stdout.write(args.command?.name === 'chat' ? CHAT_USAGE : USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const maxBytes = Number(process.env.PLAITED_LOG_FILE_MAX_BYTES) || undefined;
  let log: ReturnType<typeof cliLog>;
  try {
    log = cliLog({ level: args.logLevel, file: args.logFile, maxBytes });
  } catch (error) {
    process.stderr.write(`plaited-agent: cannot write the log file ${args.logFile}: ${(error as Error).message}; pick a writable --log-file path\n`);
    return 2;
  }
  // Inside the whole-agent sandbox the outer process already warned.
  if (process.env.PLAITED_SANDBOXED !== '1') for (const warning of mistypedVariables(process.env)) log('warn', warning);
  if (args.command?.name === 'models') {
    const { runModelsCommand } = await import('../model/models-command.js');
    const { configuredModels } = await import('./configured-models.js');
    const configured = configuredModels((await loadConfig({ cwd: process.cwd() }).catch(() => undefined))?.config);
    const { terminalStreams } = await import('./terminal-safe-stream.js');
    return runModelsCommand(args.command.args, terminalStreams(), { configured });
  }
  if (args.command?.name === 'trust') {
    const { runTrustCommand } = await import('./trust-command.js');
    const { terminalStreams } = await import('./terminal-safe-stream.js');
    // The files to trust are named by the project: a name's escape sequence must not hide a line of the list.
    return runTrustCommand(args.command.args, process.cwd(), terminalStreams());
  }
  const oneShot = await (await import('./one-shot-commands.js')).runOneShotCommand(args.command, log);
  if (oneShot !== undefined) return oneShot;

  const loaded = await loadRunConfig(args, log);
  if (loaded === undefined) return 2;
  const { config, configFile, untrusted } = loaded;

  const hint = (await import('./terminal-hint.js')).terminalHint(args, process.stdin.isTTY);
  if (hint !== undefined) process.stderr.write(`${hint}\n`);

  const requested = args.adapters.length > 0 ? args.adapters : ['acp'];
  const wholeAgent = requested.includes('sandbox') || config.adapters.sandbox.enabled;
  const insideSandbox = process.env.PLAITED_SANDBOXED === '1';
  if (wholeAgent && !insideSandbox) {
    if (config.storage.url !== undefined) {
      log.fatal(SANDBOXED_STORE);
      return 2;
    }
    // The agent re-runs itself under the sandbox; this process only pipes the protocol through.
    const { runSandboxed } = await import('../adapters/sandbox/sandbox-adapter.js');
    // The A2A face listens from outside the sandbox's network namespace (see inherited-listener.ts).
    const a2a = requested.includes('a2a') ? await (await import('./a2a-sandbox-listener.js')).a2aSandboxListener(config, args, log) : undefined;
    if (a2a === null) return 2;
    return runSandboxed({ argv: [...argv], config, cwd: process.cwd(), warn: (message) => log('warn', message), ...a2a });
  }
  // Adapters compose left to right: an adapter that returns an agent (sandbox) wraps it for the next.
  const chain = requested.filter((name) => name !== 'sandbox');
  if (chain.length === 0) chain.push('acp');
  if (wholeAgent || config.adapters.sandbox.commands) chain.unshift('sandbox');

  // -p and chat end a failed turn with a line naming its cause: logged as well, it was said twice.
  const modelFailures = args.print || args.command?.name === 'chat' ? 'debug' : 'warn';
  const agent = await buildAgent(config, { chain, untrusted, log, modelFailures });
  if (config.storage.url !== undefined && !(await checkStoreAtStart(agent, log, log.fatal))) {
    await agent.stop().catch(() => undefined);
    return 2;
  }
  const wrapped = await wrapAdapters(agent, chain, { args, config, configFile, log });
  if (wrapped === undefined) return 2;
  const { current, served } = wrapped;
  // The outermost agent: the chat's commands run where the config says (the command sandbox).
  if (args.command?.name === 'chat') return (await import('./chat-command.js')).runChatCommand(current, args.command.args);
  if (args.print) {
    const { runPrintCommand } = await import('./print-command.js');
    const code = await runPrintCommand(current, args.print, process.cwd(), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    // The outermost agent: a wrapper (the command sandbox) ends what it started once the agent stopped.
    await current.stop().catch(() => undefined);
    return code;
  }
  if (served.length === 0) {
    process.stderr.write('plaited-agent: no adapter is serving a protocol (add --adapter acp or --adapter mcp)\n');
    await current.stop();
    return 2;
  }

  return serveUntilClosed(current, served, config, log);
}

/**
 * The config this run uses: the project's (trusted or not), the flags applied, checked; its
 * warnings said (inside the whole-agent sandbox the outer process already said them).
 * `undefined` when it cannot be used: the cause is on stderr (exit 2).
 */
async function loadRunConfig(args: CliArgs, log: ReturnType<typeof cliLog>): Promise<{ config: PlaitedConfig; configFile: string | null; untrusted: string | undefined } | undefined> {
  const outer = process.env.PLAITED_SANDBOXED !== '1';
  try {
    cliToken = commandLineToken(args, process.cwd(), (message) => outer && log('warn', message));
    if (args.print) checkPrintRules(args.print);
    const loaded = await loadConfig({ cwd: process.cwd(), configPath: args.config });
    const config = applyFlags(loaded.config, args);
    log.redact(configSecrets(config));
    checkModelSpec(config);
    if (loaded.path) log('debug', `config: ${loaded.path}`);
    const untrusted = loaded.untrusted?.message;
    if (outer) {
      // It names the project's files, which may hold an escape sequence.
      if (untrusted !== undefined) process.stderr.write(`plaited-agent: ${terminalSafe(untrusted)}\n`);
      const shadowed = shadowedConfigWarning(process.cwd(), loaded.path ?? loaded.untrusted?.file ?? null);
      if (shadowed !== undefined) log('warn', shadowed);
      // A terminal run below its project (`cd src && plaited-agent -p …`) would otherwise start on the defaults without a word.
      const terminal = args.print !== undefined || args.command?.name === 'chat';
      const above = terminal && args.config === undefined && !loaded.path && !loaded.untrusted ? parentProjectConfigWarning(process.cwd()) : undefined;
      if (above !== undefined) log('warn', above);
      for (const warning of [...(loaded.warnings ?? []), ...unknownConfigToolRules(loaded.config.tools)]) log('warn', warning);
    }
    return { config, configFile: loaded.path ?? null, untrusted };
  } catch (error) {
    log.fatal((error as Error).message);
    return undefined;
  }
}

/**
 * The preset agent on `config`, with what the command line adds: the host's model through MCP
 * sampling when mounted with none configured, the reaping of what a killed predecessor left
 * running, telemetry when asked for, and the tool-call log.
 */
async function buildAgent(
  config: PlaitedConfig,
  options: { chain: readonly string[]; untrusted: string | undefined; log: ReturnType<typeof cliLog>; modelFailures: 'warn' | 'debug' },
): Promise<Agent> {
  const { chain, untrusted, log } = options;
  const insideSandbox = process.env.PLAITED_SANDBOXED === '1';
  // Mounted as an MCP server with no model configured: borrow the host's model through MCP
  // sampling during its turns (hosts without sampling are told to configure one).
  const model =
    chain.includes('mcp') && config.agent.model === undefined
      ? (await import('../adapters/mcp-server/host-sampling.js')).hostSampling.resolver(
          chain.length === 1 ? (await import('./mcp-model-not-configured.js')).mcpModelNotConfigured : modelSource(config),
        )
      : undefined;
  // Inside the isolated whole-agent sandbox the launcher runs (and records) the commands; what this agent starts dies with the sandbox's pid namespace.
  if (config.agent.stateDb !== ':memory:' && !(insideSandbox && process.env.PLAITED_SANDBOX_ISOLATED === '1')) {
    // What a previous agent here left running when it was killed (SIGKILL runs no exit hook).
    // In the state folder, out of every tool's reach: a planted ledger cannot name processes to kill.
    const reaped = useProcessLedger(join(ensureStateFolder(process.cwd()), 'processes'));
    if (reaped > 0) log('warn', `stopped ${reaped} command(s) a previous plaited-agent left running when it was killed`);
  }
  // Loaded only when the OTEL_* variables ask for traces: nothing of the SDK at a cold start otherwise.
  for (const warning of unsupportedOtelExporters()) log('warn', warning);
  const telemetry = telemetryEnabled() ? await (await import('./start-telemetry.js')).startTelemetry(packageVersion(), (message) => log('warn', message)) : undefined;
  // Loaded here, not at the top: `--version`, the one-shot commands and the whole-agent sandbox's
  // parent (which only pipes the protocol through) never build an agent.
  const { createDefaultAgent } = await import('../default-agent.js');
  const agent = createDefaultAgent({
    config,
    log,
    model,
    extensions: [logToolCalls(log), ...(untrusted === undefined ? [] : [sessionNotice('config trust', untrusted)])],
    modelObservers: [
      async (resolved) => (await import('../model/log-model-calls.js')).logModelCalls(resolved, log, options.modelFailures),
      ...(telemetry ? [telemetry.observeModel] : []),
    ],
  });
  telemetry?.trace(agent);
  return agent;
}

type Served = { closed: Promise<void>; url?: unknown; close?: () => unknown; drain?: () => void };
/** Which adapter (its name or file) serves each face, for a message when its `closed` rejects. */
const servedBy = new WeakMap<Served, string>();

/**
 * Adapters compose left to right: one that returns an agent (sandbox) wraps it for the next, one
 * that serves a protocol is kept. `undefined` (stopped, said on stderr) when one fails to start.
 */
async function wrapAdapters(
  agent: Agent,
  chain: string[],
  { args, config, configFile, log }: { args: CliArgs; config: PlaitedConfig; configFile: string | null; log: ReturnType<typeof cliLog> },
): Promise<{ current: Agent; served: Served[] } | undefined> {
  let current = agent;
  const served: Served[] = [];
  try {
    // A headless one-shot (-p) and the terminal chat take the wrappers (sandbox) but serve no protocol.
    const names = args.print || args.command?.name === 'chat' ? chain.filter((entry) => entry === 'sandbox') : chain;
    const adapters: Array<AgentAdapter<unknown, unknown>> = [];
    for (const name of names) adapters.push(await resolveAdapter(name, (message) => log('warn', message)));
    checkAdapterSections(config, configFile, adapters, log);
    for (const [index, adapter] of adapters.entries()) {
      // A2A beside --transport http listens where its config says: --port is the other face's.
      const portFlag = !(names[index] === 'a2a' && args.transport === 'http');
      const heldHere = served.flatMap((face) => (typeof face.url === 'string' ? [Number(new URL(face.url).port)] : []));
      const result = await startAdapter(adapter, names[index]!, current, adapterOptions(names[index]!, config, args, log, adapter.name), portFlag, heldHere);
      if (isAgent(result)) current = result;
      else if (isServed(result)) {
        served.push(result);
        servedBy.set(result, names[index]!);
      } else throw adapterResultError(names[index]!, result);
    }
  } catch (error) {
    log.fatal((error as Error).message);
    await agent.stop();
    return undefined;
  }
  return { current, served };
}

/** `adapter.wrap`, whose failure (a taken port, a custom adapter's own error) names the adapter. */
async function startAdapter(adapter: AgentAdapter<unknown, unknown>, name: string, agent: Agent, options: unknown, portFlag: boolean, heldHere: number[]): Promise<unknown> {
  try {
    return await adapter.wrap(agent, options);
  } catch (error) {
    throw adapterStartFailure(name, error, portFlag, heldHere);
  }
}

/** Serves until a face closes; SIGINT stops at once, SIGTERM drains a network face (a second one ends it). */
async function serveUntilClosed(agent: Agent, served: Served[], config: PlaitedConfig, log: ReturnType<typeof cliLog>): Promise<number> {
  const stop = async (code: number) => {
    await agent.stop().catch(() => undefined);
    process.exit(code);
  };
  // A network face (a replica behind a balancer) drains on SIGTERM; a second SIGTERM ends it at once.
  // `on`, not `once`: a library's exit hook (signal-exit) re-raises a signal nobody else listens to.
  const network = served.some((server) => typeof server.url === 'string');
  let terminating = false;
  process.on('SIGTERM', () => {
    if (terminating) return process.exit(143);
    terminating = true;
    void (network ? drain(agent, served, config.server.shutdownGraceMs, log) : stop(143));
  });
  process.once('SIGINT', () => void stop(130));
  // A face whose `closed` rejects (a custom adapter's lost socket) is named, and the process exits 1.
  const failure = await Promise.race(served.map((server) => server.closed.then(() => undefined, (error: unknown) => adapterStopMessage(servedBy.get(server) ?? 'adapter', error))));
  await agent.stop().catch(() => undefined);
  if (failure === undefined) return 0;
  log.fatal(failure);
  return 1;
}

/**
 * Graceful shutdown of a replica: `/readyz` says 503 and prompts are refused from now on, running
 * turns get `graceMs` to finish, the rest are cancelled; sessions close (leases released, so another
 * replica takes them at once), the store closes, the faces close, and the process exits 0.
 */
async function drain(agent: Agent, served: ReadonlyArray<{ close?: () => unknown; drain?: () => void }>, graceMs: number, log: Log): Promise<never> {
  log('info', `SIGTERM: draining (running turns get up to ${Math.round(graceMs / 1000)} s), then exiting`);
  for (const server of served) server.drain?.();
  await agent.stop({ graceMs }).catch((error: unknown) => log('warn', `stopping the agent failed: ${(error as Error).message}`));
  for (const server of served) await Promise.resolve(server.close?.()).catch(() => undefined);
  process.exit(0);
}

function applyFlags(config: PlaitedConfig, args: CliArgs): PlaitedConfig {
  const reclaimer = createMemoryReclaimer();
  const onTurnEnd = config.hooks.onTurnEnd === undefined ? [] : Array.isArray(config.hooks.onTurnEnd) ? config.hooks.onTurnEnd : [config.hooks.onTurnEnd];
  const store = sessionStoreUrl(config, args.store);
  return {
    ...config,
    storage: { ...config.storage, ...(store === undefined ? {} : { url: store }) },
    hooks: { ...config.hooks, onTurnEnd: [...onTurnEnd, () => reclaimer.afterTurn()] },
    // -p --allow/--deny: rules for this run only, beside the config's.
    ...(args.print ? { tools: { ...config.tools, allow: [...config.tools.allow, ...args.print.allow], deny: [...config.tools.deny, ...args.print.deny] } } : {}),
    agent: {
      ...config.agent,
      ...(args.model ? { model: args.model } : {}),
      ...(args.baseURL ? { baseURL: args.baseURL } : {}),
    },
  };
}

/**
 * A key under `adapters` that no adapter of this run reads: a misspelled known name (`acpp`) is
 * refused naming it; any other is a custom adapter's section this run does not load, and a warning says so.
 */
function checkAdapterSections(config: PlaitedConfig, file: string | null, adapters: ReadonlyArray<AgentAdapter<unknown, unknown>>, log: Log): void {
  const issues = adapterSectionIssues(config.adapters, adapters.map((adapter) => adapter.name));
  const misspelled = issues.filter((issue) => issue.didYouMean !== undefined);
  if (misspelled.length > 0) {
    throw new ConfigError('invalid_config', formatInvalid(file, misspelled), { file, issues: misspelled });
  }
  for (const issue of issues) log('warn', `config ${issue.path}: ${issue.message}`);
}

/** What a serving adapter resolves to: `closed` must be a promise (the CLI waits on it). */
function isServed(value: unknown): value is Served {
  return typeof value === 'object' && value !== null && typeof (value as { closed?: { then?: unknown } }).closed?.then === 'function';
}

function isAgent(value: unknown): value is Agent {
  return typeof value === 'object' && value !== null && 'process' in value && 'sessions' in value;
}

async function resolveAdapter(name: string, warn: (message: string) => void): Promise<AgentAdapter<unknown, unknown>> {
  switch (name) {
    case 'acp':
      return (await import('../adapters/acp/acp-adapter.js')).acpAdapter as AgentAdapter<unknown, unknown>;
    case 'sandbox':
      return (await import('../adapters/sandbox/sandbox-adapter.js')).sandboxAdapter as AgentAdapter<unknown, unknown>;
    case 'mcp':
      return (await import('../adapters/mcp-server/mcp-server-adapter.js')).mcpServerAdapter as AgentAdapter<unknown, unknown>;
    case 'a2a':
      return (await import('../adapters/a2a/a2a-adapter.js')).a2aAdapter as AgentAdapter<unknown, unknown>;
    default: {
      const { loadAdapter } = await import('../adapters/load-adapter.js');
      return loadAdapter(name, process.cwd(), warn);
    }
  }
}

function adapterOptions(name: string, config: PlaitedConfig, args: CliArgs, log: Log, adapterName: string): unknown {
  const version = packageVersion();
  // Always shown, whatever the log level: without it nobody can connect.
  networkAuth ??= networkAuthSource(config, { noAuth: args.noAuth, token: cliToken }, process.env, (message) => process.stderr.write(`[plaited-agent] ${message}\n`));
  if (name === 'acp') {
    const settings = config.adapters.acp;
    return {
      version,
      log: (message: string) => log('debug', message),
      warn: (message: string) => log('warn', message),
      transport: args.transport ?? settings.transport,
      host: args.host ?? settings.host,
      port: args.port ?? settings.port,
      idleTimeoutMs: settings.idleTimeoutMs,
      maxMessageBytes: settings.maxMessageBytes,
      maxJsonDepth: settings.maxJsonDepth,
      acpSettings: acpSettingsFromConfig(config),
      networkAuth,
      ...replicaIdOption(config, args),
      onListening: (url: string, replicaId: string) => log('info', `ACP over HTTP at ${url} (WebSocket on the same path; replica ${replicaId})`),
    };
  }
  if (name === 'mcp') {
    return {
      version,
      config,
      ...(args.transport ? { transport: args.transport } : {}),
      ...(args.host ? { host: args.host } : {}),
      ...(args.port !== undefined ? { port: args.port } : {}),
      ...replicaIdOption(config, args),
      networkAuth,
      log,
    };
  }
  if (name === 'a2a') return a2aOptions(config, args, log, version, networkAuth);
  const settings = (config.adapters as Record<string, unknown>)[adapterName] ?? {};
  return { settings, version, config, transport: args.transport, host: args.host, port: args.port, networkAuth, log } satisfies CustomAdapterOptions;
}

let networkAuth: ReturnType<typeof networkAuthSource> | undefined;
let cliToken: string | undefined;

/** The version in the package's own package.json (found upwards from the running file). */
function packageVersion(): string {
  const own = ownPackageJson();
  if (!own) throw new Error(`cannot find plaited-agent's package.json above ${fileURLToPath(import.meta.url)}`);
  return own.version;
}
