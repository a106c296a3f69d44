/**
 * A custom adapter: a line-based REPL on a terminal. Each line is a prompt; the answer
 * streams back as it is written. Permission questions are asked inline (`y` allows once).
 * `/new` starts a new session, `/exit` (or end of input) quits.
 *
 *   plaited-agent --adapter ./examples/repl-adapter.ts
 *
 * Works on pipes too (no prompt marker then), which is how it is tested.
 * In your own project, import the types from 'plaited-agent'.
 */
import { createInterface } from 'node:readline';
import type { AgentAdapter } from '../src/index.js';

interface ReplOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

interface Repl {
  closed: Promise<void>;
  close(): void;
}

const adapter: AgentAdapter<ReplOptions, Repl> = {
  name: 'repl',
  wrap(agent, options = {}) {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const tty = Boolean(input.isTTY);
    const lines = createInterface({ input, terminal: tty, output: tty ? output : undefined });
    const write = (text: string) => void output.write(text);

    // Lines are queued so a permission question asked mid-turn can read the next one.
    const queue: string[] = [];
    const waiting: Array<(line: string | undefined) => void> = [];
    let ended = false;
    lines.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : queue.push(line)));
    lines.on('close', () => {
      ended = true;
      for (const wake of waiting.splice(0)) wake(undefined);
    });
    const nextLine = () =>
      queue.length > 0 ? Promise.resolve(queue.shift()) : ended ? Promise.resolve(undefined) : new Promise<string | undefined>((wake) => waiting.push(wake));

    const closed = (async () => {
      let sessionId = (await agent.sessions.create({ cwd: process.cwd() })).sessionId;
      write(`session ${sessionId}\n`);
      while (true) {
        if (tty) write('> ');
        const line = await nextLine();
        if (line === undefined || line.trim() === '/exit') break;
        if (line.trim() === '') continue;
        if (line.trim() === '/new') {
          sessionId = (await agent.sessions.create({ cwd: process.cwd() })).sessionId;
          write(`session ${sessionId}\n`);
          continue;
        }
        for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: line }] })) {
          switch (event.type) {
            case 'text-delta':
              write(event.text);
              break;
            case 'tool-call':
              write(`\n[tool ${event.toolName}] ${event.title}\n`);
              break;
            case 'permission-request': {
              write(`\nAllow ${event.title}? [y/N] `);
              const answer = (await nextLine())?.trim().toLowerCase();
              const kind = answer === 'y' || answer === 'yes' ? 'allow_once' : 'reject_once';
              const option = event.options.find((candidate) => candidate.kind === kind);
              event.respond(option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' });
              write(kind === 'allow_once' ? 'allowed\n' : 'rejected\n');
              break;
            }
            case 'error':
              write(`\n[error ${event.error.code}] ${event.error.message}\n`);
              break;
            case 'turn-end':
              write(`\n[done: ${event.stopReason}]\n`);
              break;
            default:
              break;
          }
        }
      }
      lines.close();
    })();
    return { closed, close: () => lines.close() };
  },
};

export default adapter;
