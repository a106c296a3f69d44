import { parseArgs } from 'node:util';
import { errorMessage } from '../errors/error-message.js';
import { PlaitedError } from '../errors/plaited-error.js';
import { PRINT_OPTIONS, printArgsFrom, type PrintArgs } from './print-args.js';
import { parseChatArgs } from './parse-chat-args.js';
import { usageProblem } from './usage-problem.js';
import { textArguments } from './text-arguments.js';
import { closestName } from '../config/closest-name.js';

export interface CliArgs {
  adapters: string[];
  config?: string;
  model?: string;
  baseURL?: string;
  logLevel: LogLevel;
  /** Also write the log as JSON lines to this file (size-bounded, rotated). */
  logFile?: string;
  transport?: 'stdio' | 'http';
  host?: string;
  port?: number;
  /** Bearer token for --transport http (else PLAITED_AUTH_TOKEN, config, or generated); visible in /proc/<pid>/cmdline. */
  authToken?: string;
  /** A file holding the bearer token (first line), read at start: keeps it off the command line. */
  authTokenFile?: string;
  /** This replica's route name behind a balancer; else PLAITED_REPLICA_ID, config `server.replicaId`. */
  replicaId?: string;
  /** Session store URL (`postgres://…`); else PLAITED_STORE, config `storage.url`, else SQLite files. */
  store?: string;
  /** No auth for --transport http: only with a loopback host. */
  noAuth: boolean;
  help: boolean;
  version: boolean;
  /** A subcommand (`models`, `trust`) and its arguments. */
  command?: { name: string; args: string[] };
  /** `-p` / `--print`: one headless turn (see print-args.ts). */
  print?: PrintArgs;
}

/** The flags of a server start and of `-p`. */
const OPTIONS = {
  ...PRINT_OPTIONS,
  adapter: { type: 'string', multiple: true },
  config: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'log-level': { type: 'string' },
  'log-file': { type: 'string' },
  transport: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'auth-token': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'no-auth': { type: 'boolean' },
  store: { type: 'string' },
  'replica-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Subcommands that parse their own arguments. */
const SUBCOMMANDS = new Set(['models', 'trust', 'sessions', 'init', 'doctor', 'mcp']);

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

export class CliUsageError extends PlaitedError<'cli_usage'> {
  constructor(message: string) {
    super('cli_usage', message);
    this.name = 'CliUsageError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is CliUsageError {
    return PlaitedError.isInstance(error) && error.name === 'CliUsageError';
  }
}

export const USAGE = `Usage: plaited-agent [options]
       plaited-agent models pull SPEC | models list
       plaited-agent trust [--config PATH] [--revoke]
       plaited-agent -p "TASK" [--output-format text|json|stream-json] [--mode M] [--allow T]... [--deny T]... [--resume ID | --continue]
       plaited-agent sessions list | show ID | export ID [--format markdown|json] | delete ID
       plaited-agent init | doctor | mcp list
       plaited-agent chat [--resume ID] [options]   an interactive session in this terminal

Starts an agent that speaks the Agent Client Protocol on stdio (default): ACP v1, or the
ACP v2 draft (experimental) when the client's initialize asks for protocol version 2
(with tool-call and terminal cancel, agent-owned terminals and background commands).
ACP v1 is served from the SDK's stable entry; unstable v1 methods are served beside it
to clients that call them: session/fork (unstable; the v2 draft serves it too) and
providers/list, providers/set, providers/disable (unstable: route the model calls through
the client's endpoint; v2 too). Unstable methods may change with any SDK release.

Options:
  --adapter NAME|PATH   acp (default), mcp, a2a, sandbox, or a module whose default export is an
                        AgentAdapter; repeat to compose (--adapter sandbox --adapter acp)
  --config PATH         config file (default: .plaited/config.{ts,mts,js,mjs,json})
  --model SPEC          PROVIDER:MODEL: anthropic:, openai:, google:, openrouter:, ollama:, lmstudio:,
                        vllm:, llamacpp-server:, deepseek:, groq:, openai-compatible: or llama-cpp:PATH_OR_URI
  --base-url URL        the model endpoint (any provider's; required for openai-compatible:)
  --transport T         stdio (default) or http
  --host HOST           bind address for --transport http (default 127.0.0.1)
  --port N              port for --transport http (or for --adapter a2a, when no other face listens)
  --auth-token-file F   file holding the bearer token HTTP clients must send (default:
                        PLAITED_AUTH_TOKEN, config server.auth.token, else one is generated
                        and printed to stderr)
  --auth-token TOKEN    the token itself (discouraged: other local users see it in
                        /proc/<pid>/cmdline; use --auth-token-file or PLAITED_AUTH_TOKEN)
  --no-auth             accept HTTP clients without a token (only with a loopback --host)
  --store URL           keep sessions in PostgreSQL (postgres://user:pass@host/db), shared by
                        every replica given the same URL (default: PLAITED_STORE, config
                        storage.url, else a SQLite file per project); prefer PLAITED_STORE
                        for a URL with a password
  --replica-id NAME     this replica's route name behind a balancer (letters, digits, - and _):
                        prefixes its ACP connection ids, named in the Plaited-Replica header
                        (default: PLAITED_REPLICA_ID, config server.replicaId, else host-port)
  --log-level LEVEL     error, warn, info (default) or debug; logs go to stderr
  --log-file PATH       also write the log as JSON lines to PATH (rotated past
                        PLAITED_LOG_FILE_MAX_BYTES, default 10 MiB; 3 old files kept)

Headless one-shot (scripts, CI): runs one turn in the current project and exits
  -p, --print [TASK]    the task, the answer on stdout; read from stdin when omitted (or -) and
                        stdin is piped. With a TASK, text piped or redirected in follows it
                        (git diff | plaited-agent -p "review this")
  --output-format F     text (default), json (one object: result, session id, stop reason, usage,
                        tool calls, refused permissions) or stream-json (one JSON event per line)
  --mode M              default, accept-edits or plan
  --allow RULE          a tool (or tool(scope), e.g. "bash(npm test:*)") that runs without asking; repeat
  --deny RULE           a tool (or tool(scope)) refused; repeat. Any call that would ask is refused
                        and reported: nothing waits for an answer
  --resume ID           add the turn to that session of this project (any unique beginning of its id)
  -c, --continue        add the turn to the project's latest session
  Exit code 0 when the turn ends normally (end_turn), 130 when cancelled (Ctrl-C; 143 for
  SIGTERM), 141 when stdout's reader went away (| head); 1 otherwise, the reason on stderr;
  2 for a usage mistake (a wrong flag, no task, no such session).

Commands:
  sessions              list, show, export (Markdown or JSON) or delete this project's sessions
  init                  write a commented .plaited/config.ts and AGENTS.md (never overwrites)
  doctor                check the tools, model, embedder, MCP servers and state store; exit 1 on a failure
  mcp list              each configured MCP server: state, tool count, last error
  help COMMAND          that command's own usage (as COMMAND --help)
  -h, --help            show this help
  -v, --version         show the version
`;

/** The command `help WORD` asks about; a word that is none is a usage error naming the one meant. */
function helpTopic(word: string): string {
  const commands = [...SUBCOMMANDS, 'chat'];
  if (commands.includes(word)) return word;
  const meant = closestName(word, commands);
  throw new CliUsageError(`no command '${word}' to show the help of: ${meant !== undefined ? `did you mean plaited-agent help ${meant}?` : `the commands are ${commands.join(', ')}`}`);
}

/**
 * `-p` serves no protocol and builds no custom adapter (only the sandbox wraps it): a face's flag
 * beside it would do nothing, silently. Named instead, with what to drop.
 */
const BUILTIN_FACES = ['acp', 'mcp', 'a2a'];

function checkServingFlags(values: { adapter?: string[]; transport?: string; host?: string; port?: string }): void {
  const face = (values.adapter ?? []).find((name) => name !== 'sandbox');
  if (face !== undefined) {
    const what = BUILTIN_FACES.includes(face) ? 'serves a protocol; -p runs one turn and serves none' : 'is a custom adapter, which -p does not build (it runs the core directly)';
    throw new CliUsageError(`--adapter ${face} ${what}: drop --adapter ${face} (or -p)`);
  }
  const flag = (['transport', 'host', 'port'] as const).find((name) => values[name] !== undefined);
  if (flag !== undefined) throw new CliUsageError(`--${flag} is for serving a protocol; -p runs one turn and serves none: drop --${flag}`);
}

/** Parsed option values with each text stand-in (text-arguments.ts) given back its text. */
function restoreValues<Values extends Record<string, unknown>>(values: Values, restore: (value: string) => string): Values {
  const restored: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    restored[name] = typeof value === 'string' ? restore(value) : Array.isArray(value) ? value.map((item: unknown) => (typeof item === 'string' ? restore(item) : item)) : value;
  }
  return restored as Values;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  // `plaited-agent help`, as git and npm have it: the usage, not a task named "help".
  if (argv.length === 1 && argv[0] === 'help') return parseCliArgs(['--help']);
  // `plaited-agent help sessions`: that command's usage, as `sessions --help` shows it.
  if (argv.length === 2 && argv[0] === 'help') return parseCliArgs([helpTopic(argv[1]!), '--help']);
  // `plaited-agent sessions help`: the same, not an action named "help".
  if (argv.length === 2 && argv[1] === 'help' && [...SUBCOMMANDS, 'chat'].includes(argv[0]!)) return parseCliArgs([argv[0]!, '--help']);
  if (argv[0] !== undefined && SUBCOMMANDS.has(argv[0])) {
    return { adapters: [], logLevel: 'info', noAuth: false, help: false, version: false, command: { name: argv[0], args: argv.slice(1) } };
  }
  if (argv[0] === 'chat') return parseChatArgs(argv.slice(1), parseCliArgs);
  const text = textArguments(argv);
  let parsed;
  try {
    parsed = parseArgs({
      args: text.args,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (error) {
    throw new CliUsageError(usageProblem(error, OPTIONS, 'plaited-agent --help'));
  }
  const values = restoreValues(parsed.values, text.restore);
  const positionals = parsed.positionals.map(text.restore);
  const word = positionals[0] ?? '';
  const command = values.print ? undefined : closestName(word, [...SUBCOMMANDS, 'chat']);
  if (command === word) throw new CliUsageError(`a command comes first, before any flag: plaited-agent ${command} …`);
  if (command !== undefined) throw new CliUsageError(`unknown command '${word}': did you mean plaited-agent ${command}?`);
  let print: PrintArgs | undefined;
  try {
    print = printArgsFrom(values, positionals);
  } catch (error) {
    throw new CliUsageError(errorMessage(error));
  }
  if (print) checkServingFlags(values);
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LEVELS.includes(logLevel)) throw new CliUsageError(`--log-level must be one of ${LEVELS.join(', ')}`);
  const transport = values.transport;
  if (transport !== undefined && transport !== 'stdio' && transport !== 'http') {
    throw new CliUsageError('--transport must be stdio or http');
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliUsageError('--port must be a number from 0 to 65535');
  }
  return {
    adapters: values.adapter ?? [],
    config: values.config,
    model: values.model,
    baseURL: values['base-url'],
    logLevel,
    logFile: values['log-file'],
    transport,
    host: values.host,
    port,
    authToken: values['auth-token'],
    authTokenFile: values['auth-token-file'],
    ...(values.store === undefined ? {} : { store: values.store }),
    ...(values['replica-id'] === undefined ? {} : { replicaId: values['replica-id'] }),
    noAuth: values['no-auth'] ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
    ...(print ? { print } : {}),
  };
}
