import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Agent, SessionInfo } from '../agent/agent.js';
import { errorMessage } from '../errors/error-message.js';
import { openProjectAgent } from './open-project-agent.js';
import { sessionMarkdown } from './session-markdown.js';
import type { Log } from './stderr-log.js';
import { usageProblem } from './usage-problem.js';
import { sessionStateExists } from '../storage/session-state-exists.js';
import { matchSession } from './match-session.js';
import { closestName } from '../config/closest-name.js';
import { planFilePath } from '../context/session-plans.js';

/** The flags of `plaited-agent sessions`. */
const OPTIONS = { format: { type: 'string' }, output: { type: 'string' }, config: { type: 'string' }, store: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export const SESSIONS_USAGE = `Usage: plaited-agent sessions list [--format text|json]
       plaited-agent sessions show ID
       plaited-agent sessions export ID [--format markdown|json] [--output FILE]
       plaited-agent sessions delete ID

The sessions of the project in the current folder, read from the store the agent uses here
(PLAITED_STORE or storage.url: PostgreSQL; else .plaited/state/, never created by reading). ID may
be any unique beginning of a session id.

Options:
  --format F      list: text (default) or json; export: markdown (default) or json
  --output FILE   export: write to FILE instead of stdout
  --config PATH   the config to read (default: .plaited/config.{ts,mts,js,mjs,json})
  --store URL     the PostgreSQL session store (default: PLAITED_STORE, config storage.url)
  -h, --help      show this help
`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const ACTIONS = ['list', 'show', 'export', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

/** `plaited-agent sessions …`: resolves to the exit code (2: wrong usage, 1: no such session). */
export async function runSessionsCommand(argv: readonly string[], cwd: string, streams: Streams, log: Log): Promise<number> {
  const fail = (message: string, code: number) => {
    streams.stderr.write(`plaited-agent sessions: ${message}\n`);
    return code;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    return fail(`${usageProblem(error, OPTIONS, 'plaited-agent sessions --help')}\n\n${SESSIONS_USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    streams.stdout.write(SESSIONS_USAGE);
    return 0;
  }
  const [action, id, ...extra] = positionals as [string | undefined, string | undefined, ...string[]];
  if (action === undefined || !(ACTIONS as readonly string[]).includes(action)) return fail(`${unknownAction(action)}\n\n${SESSIONS_USAGE}`, 2);
  if (action !== 'list' && id === undefined) return fail(`${action} needs a session id (plaited-agent sessions list shows them)`, 2);
  if (extra.length > 0 || (action === 'list' && id !== undefined)) return fail(`unexpected argument '${action === 'list' ? id : extra[0]}'`, 2);
  const formats = action === 'list' ? ['text', 'json'] : action === 'export' ? ['markdown', 'json'] : [];
  const format = values.format ?? formats[0];
  if (values.format !== undefined && !formats.includes(values.format)) return fail(formats.length === 0 ? `--format goes with list or export` : `--format for ${action} is one of ${formats.join(', ')}`, 2);
  const { agent, config, untrusted } = await openProjectAgent({ cwd, configPath: values.config, store: values.store, log });
  if (untrusted !== undefined) log('warn', untrusted);
  try {
    // Opening the SQLite store creates it: a project without one has no sessions, and asking leaves no `.plaited` behind.
    const none = config.storage.url === undefined && !sessionStateExists(cwd, config.agent.stateDb);
    return await act(agent, action as Action, { id, format, output: values.output, cwd, streams, fail, none });
  } catch (error) {
    return fail(errorMessage(error), 1);
  } finally {
    await agent.stop().catch(() => undefined);
  }
}

interface ActOptions {
  id: string | undefined;
  format: string | undefined;
  output: string | undefined;
  cwd: string;
  streams: Streams;
  fail: (message: string, code: number) => number;
  /** There is no store yet: no sessions, and none is opened. */
  none: boolean;
}

async function act(agent: Agent, action: Action, options: ActOptions): Promise<number> {
  const { cwd, streams } = options;
  const stored = options.none ? [] : await agent.sessions.list({ cwd });
  const sessions = stored.filter((session) => session.cwd === cwd).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  if (action === 'list') {
    if (options.format === 'json') streams.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    else if (sessions.length === 0) streams.stdout.write(`No sessions in ${cwd} yet.\n`);
    else for (const session of sessions) streams.stdout.write(`${session.sessionId}  ${session.updatedAt}  ${session.mode.padEnd(12)}  ${session.title ?? '(untitled)'}\n`);
    return 0;
  }
  const match = matchSession(sessions, options.id!, cwd);
  if ('problem' in match) return options.fail(match.problem, match.ambiguous ? 2 : 1);
  const { session } = match;
  if (action === 'delete') {
    await agent.sessions.delete(session.sessionId);
    // Its plan goes too: this one-shot agent starts no extension to hear of the delete.
    await rm(planFilePath(session.sessionId, session.cwd), { force: true });
    streams.stdout.write(`Deleted session ${session.sessionId}.\n`);
    return 0;
  }
  const history = await agent.sessions.history(session.sessionId, cwd);
  if (action === 'show') {
    streams.stdout.write(summary(session, history.filter((event) => event.type === 'user-message').length));
    return 0;
  }
  const text = options.format === 'json' ? `${JSON.stringify({ session, events: history }, null, 2)}\n` : sessionMarkdown(session, history);
  if (options.output === undefined) streams.stdout.write(text);
  else {
    writeFileSync(resolve(cwd, options.output), text);
    streams.stderr.write(`Wrote ${resolve(cwd, options.output)}\n`);
  }
  return 0;
}

function summary(session: SessionInfo, prompts: number): string {
  const lines = [
    `id:       ${session.sessionId}`,
    `title:    ${session.title ?? '(untitled)'}`,
    `project:  ${session.cwd}`,
    `mode:     ${session.mode}`,
    `created:  ${session.createdAt}`,
    `updated:  ${session.updatedAt}`,
    `prompts:  ${prompts}`,
    ...(session.options?.model ? [`model:    ${session.options.model}`] : []),
    ...(session.mcpServers.length > 0 ? [`mcp:      ${session.mcpServers.map((server) => server.name).join(', ')}`] : []),
    `export:   plaited-agent sessions export ${session.sessionId} [--format markdown|json]`,
  ];
  return `${lines.join('\n')}\n`;
}

/** What `sessions` says without a known action: the choices, and the one a typo meant. */
function unknownAction(action: string | undefined): string {
  const meant = action === undefined ? undefined : closestName(action, ACTIONS);
  if (meant !== undefined) return `unknown action '${action}': did you mean plaited-agent sessions ${meant}?`;
  return `say what to do: ${ACTIONS.join(', ')}`;
}
