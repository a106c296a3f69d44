import type { Agent, SessionInfo } from '../agent/agent.js';
import { errorMessage } from '../errors/error-message.js';
import type { PrintArgs } from './print-args.js';
import { printTurn, type PrintResult } from './print-turn.js';
import { matchSession } from './match-session.js';
import { printOutput, stdoutFailureReport } from './print-output.js';
import { printTask, type PrintStdin } from './piped-input.js';
import { terminalSafe } from '../agent/terminal-safe.js';
import { terminalSafeStream } from './terminal-safe-stream.js';

export interface PrintStreams {
  stdin: PrintStdin;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `plaited-agent -p "task"`: one turn in `cwd` on a new session (or `--resume ID`, `--continue`),
 * the answer on stdout in the asked format, then stop. Resolves to the exit code: 0 on `end_turn`,
 * 130 when cancelled by Ctrl-C (143 by SIGTERM), 141 when stdout's reader went away, 1 otherwise (the reason on stderr), 2 when the command
 * itself is wrong (no prompt, stdin that no prompt can carry, no such session).
 */
export async function runPrintCommand(agent: Agent, print: PrintArgs, cwd: string, streams: PrintStreams): Promise<number> {
  // Lines for a person: a refused call's title or a server's notice shows its control characters, never runs them.
  const say = (line: string) => streams.stderr.write(`plaited-agent: ${terminalSafe(line)}\n`);
  // A stderr closed as well (`2>&1 | head -1`) leaves no one to tell: its failure is not a crash.
  streams.stderr.on('error', () => undefined);
  const read = await printTask(print.prompt, streams.stdin);
  if ('problem' in read) {
    say(read.problem);
    return 2;
  }
  if (read.notice) say(read.notice);
  const prompt = read.task;
  if (prompt === undefined || prompt.trim() === '') {
    say('-p needs a task: plaited-agent -p "what to do", or pipe it in (echo "what to do" | plaited-agent -p)');
    return 2;
  }
  let session: SessionInfo;
  try {
    const found = await sessionFor(agent, print, cwd);
    if (typeof found === 'string') {
      say(found);
      return 2;
    }
    session = found;
  } catch (error) {
    say(errorMessage(error));
    return 1;
  }
  const abort = new AbortController();
  // A reader that went away (`| head -1`) or a write that failed: no one gets the rest, so the turn stops.
  // On a terminal the answer's control characters show, never act (the model may repeat what a file planted).
  const stdout = printOutput(terminalSafeStream(streams.stdout), () => abort.abort());
  // The first Ctrl-C (or SIGTERM) cancels the turn, which then ends and reports; a second one exits
  // at once. The exit is the signal's, as a shell reports a process it ended: 128 + 2, 128 + 15.
  let signalled: NodeJS.Signals | undefined;
  const cancel = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) process.exit(signalExit(signal));
    signalled = signal;
    abort.abort();
  };
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
  let result: PrintResult;
  try {
    result = await printTurn(agent, session.sessionId, prompt, { format: print.outputFormat, stdout, report: say, signal: abort.signal });
  } finally {
    process.off('SIGINT', cancel);
    process.off('SIGTERM', cancel);
  }
  if (print.outputFormat !== 'text') stdout.write(`${JSON.stringify(result)}\n`);
  await stdout.drained();
  const lost = stdout.failure();
  if (lost) {
    const { code, line } = stdoutFailureReport(lost, result);
    say(line);
    return code;
  }
  if (result.stopReason === 'end_turn') return 0;
  if (result.stopReason === 'cancelled') {
    say(`the turn was cancelled${signalled ? ` (${signalled})` : ''}`);
    return signalExit(signalled ?? 'SIGINT');
  }
  say(result.error ? `the turn failed (${result.error.code}): ${result.error.message}${result.error.reason ? ` [reason: ${result.error.reason}]` : ''}` : `the turn ended with stop reason ${result.stopReason}, not end_turn${STOP_FIX[result.stopReason] ?? ''}`);
  return 1;
}

function signalExit(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? 143 : 130;
}

/** What a turn's unusual end means, and what to do. */
const STOP_FIX: Partial<Record<string, string>> = {
  refusal: ": the model refused to answer (its provider's content filter or safety stop); rephrase the task, or use another model (--model)",
};

/** The session the turn goes to, or what is wrong with the asked one. */
async function sessionFor(agent: Agent, print: PrintArgs, cwd: string): Promise<SessionInfo | string> {
  if (print.resume === undefined && !print.continue) return agent.sessions.create({ cwd, ...(print.mode ? { mode: print.mode } : {}) });
  const sessions = (await agent.sessions.list({ cwd })).filter((session) => session.cwd === cwd).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  let id: string;
  if (print.resume !== undefined) {
    // As `sessions show`: the id, or any unique beginning of one.
    const match = matchSession(sessions, print.resume, cwd);
    if ('problem' in match) return `--resume: ${match.problem}`;
    id = match.session.sessionId;
  } else {
    if (!sessions[0]) return `--continue: no session in ${cwd} yet; start one with plaited-agent -p "task"`;
    id = sessions[0].sessionId;
  }
  const session = await agent.sessions.activate(id, cwd);
  if (print.mode && print.mode !== session.mode) await agent.sessions.setMode(id, print.mode);
  return session;
}
