import { PlaitedError } from '../../errors/plaited-error.js';

export type CommandBrokerErrorCode = 'broker_gone' | 'command_failed' | 'command_too_long' | 'rule_not_saved';

/**
 * The whole-agent launcher could not run a command or save a rule for the sandboxed agent
 * (command-broker.ts): the channel is gone (the launcher is stopping), the launcher refused
 * the request, or it failed; the message says which.
 */
export class CommandBrokerError extends PlaitedError<CommandBrokerErrorCode> {
  constructor(code: CommandBrokerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, `command broker: ${message}`, options);
    this.name = 'CommandBrokerError';
  }

  static override isInstance(value: unknown): value is CommandBrokerError {
    return value instanceof Error && ['broker_gone', 'command_failed', 'command_too_long', 'rule_not_saved'].includes((value as { code?: unknown }).code as string);
  }
}
