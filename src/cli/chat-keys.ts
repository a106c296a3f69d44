import type { AgentOutput, PermissionOption } from '../contracts/agent-output.js';
import { renderQuestionDetail } from './chat-render.js';

type PermissionRequest = Extract<AgentOutput, { type: 'permission-request' }>;

const KEY_OF: Record<PermissionOption['kind'], string> = { allow_once: 'y', allow_always: 'a', reject_once: 'n', reject_always: 'N' };

/** The keys that answer a permission question, with the option each one picks. */
export function permissionKeys(options: readonly PermissionOption[]): Array<{ key: string; option: PermissionOption }> {
  const used = new Set<string>();
  return options.map((option, index) => {
    let key = KEY_OF[option.kind];
    if (used.has(key)) key = String(index + 1);
    used.add(key);
    return { key, option };
  });
}

/**
 * The keyboard while a turn runs (the terminal in raw mode): Ctrl-C interrupts (the caller
 * cancels the turn, or exits on a second one), Ctrl-D ends the chat, and while a permission
 * question is open its keys answer it.
 */
export class ChatKeys {
  private pending: { request: PermissionRequest; keys: Array<{ key: string; option: PermissionOption }> } | undefined;
  private readonly onData = (chunk: Buffer) => this.press(chunk.toString('utf8'));

  constructor(
    private readonly input: NodeJS.ReadStream,
    /** Where the question shows; the chat's screen escapes the control characters the call's title may hold. */
    private readonly output: { write(text: string): void },
    private readonly handlers: { interrupt(): void; end(): void },
  ) {}

  start(): void {
    this.input.setRawMode?.(true);
    this.input.on('data', this.onData);
    this.input.resume();
  }

  stop(): void {
    this.input.off('data', this.onData);
    this.input.setRawMode?.(false);
    this.input.pause();
    this.pending = undefined;
  }

  /** Shows the question and waits for its key (answered `cancelled` if the turn drops it first). */
  ask(request: PermissionRequest): void {
    const keys = permissionKeys(request.options);
    this.pending = { request, keys };
    const choices = keys.map(({ key, option }) => `  [${key}] ${option.name}\n`).join('');
    this.output.write(`\n? Allow ${request.title}? (a key; Ctrl-C cancels the turn)\n${renderQuestionDetail(request)}${choices}`);
    request.signal?.addEventListener('abort', () => {
      if (this.pending?.request === request) this.pending = undefined;
    });
  }

  private press(key: string): void {
    if (key === '\u0003') return this.handlers.interrupt();
    if (key === '\u0004') return this.handlers.end();
    const pending = this.pending;
    const picked = pending?.keys.find((candidate) => candidate.key === key);
    if (!pending || !picked) return;
    this.pending = undefined;
    this.output.write(`  → ${picked.option.name}\n`);
    pending.request.respond({ outcome: 'selected', optionId: picked.option.optionId });
  }
}
