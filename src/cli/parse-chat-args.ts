import type { CliArgs } from './parse-cli-args.js';

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
