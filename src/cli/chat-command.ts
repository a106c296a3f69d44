import { createInterface } from 'node:readline';
import type { Agent, SessionInfo } from '../agent/agent.js';
import type { AgentOutput } from '../contracts/agent-output.js';
import { errorMessage } from '../errors/error-message.js';
import { ChatKeys } from './chat-keys.js';
import { renderChatEvent } from './chat-render.js';
import { terminalSafe } from '../agent/terminal-safe.js';
import { matchSession } from './match-session.js';
import { CliUsageError } from './parse-cli-args.js';

interface ChatTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  cwd: string;
}

/**
 * `plaited-agent chat`: an interactive terminal session, one more client of the agent's core
 * (in-process, no protocol). The answer streams as it comes, tool calls show their titles and
 * edits, a permission question is answered with one key, slash commands go to the agent
 * (`/permissions`, `/mcp`, skills; `/help` lists them). Ctrl-C cancels the running turn, a
 * second Ctrl-C (or Ctrl-D) ends the chat. `--resume ID` goes on with a stored session.
 */
export async function runChatCommand(agent: Agent, args: readonly string[], terminal: ChatTerminal = { input: process.stdin, output: process.stdout, cwd: process.cwd() }): Promise<number> {
  const { input, cwd } = terminal;
  const output = safeScreen(terminal.output);
  if (!input.isTTY) {
    process.stderr.write('plaited-agent: chat needs a terminal on stdin; for scripts and pipes use -p "task" instead\n');
    await agent.stop();
    return 2;
  }
  const resume = args.includes('--resume') ? args[args.indexOf('--resume') + 1] : undefined;
  let session: SessionInfo;
  try {
    session = resume ? await resumed(agent, resume, cwd) : await agent.sessions.create({ cwd });
  } catch (error) {
    process.stderr.write(`plaited-agent: cannot ${resume ? `resume session ${resume}` : 'start a session'}: ${errorMessage(error)}\n`);
    await agent.stop();
    return 2;
  }
  const commands: Array<{ name: string; description: string }> = [];
  // Outside a turn: the slash commands, and notices (an MCP server that cannot start).
  const unsubscribe = agent.subscribe((event) => {
    if (event.sessionId !== session.sessionId) return;
    if (event.type === 'commands') commands.splice(0, commands.length, ...event.commands);
    else if (event.type === 'notice') output.write(renderChatEvent(event) ?? '');
  });
  output.write(`plaited-agent chat · session ${session.sessionId}${resume ? ' (resumed)' : ''} · /help for commands · Ctrl-D to leave\n`);
  try {
    for (;;) {
      const line = await askLine(input, terminal.output);
      if (line === null || line.trim() === '/exit' || line.trim() === '/quit') return 0;
      if (line.trim() === '') continue;
      if (line.trim() === '/help') {
        output.write(['Commands:', ...commands.map((command) => `  /${command.name}  ${command.description}`), '  /exit  leave the chat', ''].join('\n'));
        continue;
      }
      if ((await runTurn(agent, session.sessionId, line, terminal)) === 'quit') return 0;
    }
  } finally {
    unsubscribe();
    output.write(`\nsession ${session.sessionId} saved; go on with: plaited-agent chat --resume ${session.sessionId}\n`);
    await agent.stop();
  }
}

/** One turn: its events rendered as they come, keys listened to. Resolves `quit` when the user asked to leave. */
async function runTurn(agent: Agent, sessionId: string, text: string, terminal: ChatTerminal): Promise<'done' | 'quit'> {
  const controller = new AbortController();
  let quit = false;
  const screen = safeScreen(terminal.output);
  const keys = new ChatKeys(terminal.input, screen, {
    interrupt: () => {
      if (controller.signal.aborted) quit = true;
      controller.abort();
    },
    end: () => {
      quit = true;
      controller.abort();
    },
  });
  keys.start();
  try {
    const events: AsyncIterable<AgentOutput> = agent.process({ sessionId, prompt: [{ type: 'text', text }] }, { signal: controller.signal });
    for await (const event of events) {
      if (event.type === 'permission-request') keys.ask(event);
      else screen.write(renderChatEvent(event) ?? '');
      if (quit) break;
    }
  } catch (error) {
    screen.write(`\n[error] ${errorMessage(error)}\n`);
  } finally {
    keys.stop();
  }
  return quit ? 'quit' : 'done';
}

/**
 * The terminal as the chat writes to it: what the model, tools, files and servers wrote (answers,
 * titles, diffs, notices, command descriptions) shows its control characters, never runs them.
 */
function safeScreen(output: NodeJS.WriteStream): { write(text: string): void } {
  return { write: (text) => output.write(terminalSafe(text)) };
}

/** Reads one line; `null` on Ctrl-D, or on a second Ctrl-C at an empty line. */
function askLine(input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string | null> {
  const rl = createInterface({ input, output, terminal: true });
  return new Promise((resolve) => {
    let settled = false;
    let interrupted = false;
    const done = (value: string | null) => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(value);
    };
    rl.on('SIGINT', () => {
      if (rl.line !== '') {
        // Ctrl-C with text typed: drop the text, as a shell does.
        rl.write(null, { ctrl: true, name: 'u' });
        return;
      }
      if (interrupted) return done(null);
      interrupted = true;
      output.write('\n(Ctrl-C again or Ctrl-D to leave)\n');
      rl.prompt();
    });
    rl.on('close', () => done(null));
    rl.question('› ', (answer) => done(answer));
  });
}

/** The session `--resume` names (its id, or any unique beginning of one, as for `sessions` and `-p`), activated. */
async function resumed(agent: Agent, id: string, cwd: string): Promise<SessionInfo> {
  const sessions = (await agent.sessions.list({ cwd })).filter((session) => session.cwd === cwd);
  const match = matchSession(sessions, id, cwd);
  if ('problem' in match) throw new CliUsageError(match.problem);
  return agent.sessions.activate(match.session.sessionId, cwd);
}
