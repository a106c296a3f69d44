import type { CliArgs } from './parse-cli-args.js';

export const CHAT_USAGE = `Usage: plaited-agent chat [--resume ID] [--model SPEC] [--base-url URL] [--config PATH]
                          [--store URL] [--log-level LEVEL] [--log-file PATH]

An interactive session in this terminal, in the current project. The answer streams; a permission
question is answered with one key (y allow once, a always, n reject); /help lists the slash
commands, /exit leaves. Ctrl-C cancels the running turn, a second Ctrl-C or Ctrl-D leaves. Needs a
terminal on stdin (for scripts and pipes: plaited-agent -p "task").

Options:
  --resume ID       go on with that session of this project (any unique beginning of its id)
  --model SPEC      PROVIDER:MODEL, as for the server (plaited-agent --help lists the providers)
  --base-url URL    the model endpoint
  --config PATH     config file (default: .plaited/config.{ts,mts,js,mjs,json})
  --store URL       the PostgreSQL session store (default: PLAITED_STORE, config storage.url, else SQLite)
  --log-level LEVEL error, warn (default here: the log shares the terminal), info or debug
  --log-file PATH   also write the log as JSON lines to PATH
  -h, --help        show this help
`;

/**
 * `chat [--resume ID] [the agent's options]`: the agent's own options (model, config, log) as
 * for the server, plus the session to go on with; `command.args` carries `--resume ID`.
 */
export function parseChatArgs(argv: readonly string[], parseRest: (argv: readonly string[]) => CliArgs): CliArgs {
  const rest: string[] = [];
  const chatArgs: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--resume' && index + 1 < argv.length) chatArgs.push(arg, argv[++index]!);
    else if (arg.startsWith('--resume=')) chatArgs.push('--resume', arg.slice('--resume='.length));
    else rest.push(arg);
  }
  const parsed = parseRest(rest);
  // The log shares the terminal with the conversation: warnings only, unless asked.
  const levelGiven = rest.some((arg) => arg === '--log-level' || arg.startsWith('--log-level='));
  return { ...parsed, ...(levelGiven ? {} : { logLevel: 'warn' as const }), command: { name: 'chat', args: chatArgs } };
}
