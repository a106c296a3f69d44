import type { AgentOutput, StopReason } from '../contracts/agent-output.js';
import type { ProcessOptions, PromptInput } from './agent.js';
import type { AgentCore } from './agent-core.js';
import { admitPrompt, drainingAnswer } from './admit-prompt.js';
import { errorInfo } from './agent-notices.js';
import { compactTurnHistory } from './compact-turn-history.js';
import { toUserMessage } from './convert-prompt.js';
import { runTurnEndHooks } from './end-turn-hooks.js';
import { prepareTurn } from './prepare-turn.js';
import { QueuedTurn } from './queued-turn.js';
import type { LiveSession } from './session-manager.js';
import { turnLoopOptions } from './turn-loop-options.js';
import { userMessageEvent } from './user-message-event.js';
import { STOPPING } from './stop-agent.js';
import { INTERRUPTED_MARK } from './recover-interrupted-reply.js';
import type { TurnOverrides } from './turn-overrides.js';

export interface SessionTurnRequest {
  input: PromptInput;
  options: ProcessOptions;
  /** Set for a sub-agent's turn: its session is open, and the prompt needs no admission nor steering. */
  live?: LiveSession;
  overrides?: TurnOverrides;
}

/**
 * `Agent.process`, as one generator between the adapter and the loop: admit the prompt,
 * steer it into the running turn (it joins before the next model step and supersedes calls
 * waiting for approval; this stream then ends) or queue a turn after the session's previous
 * ones. The turn's events are recorded as they pass. A turn that throws (a full disk,
 * arguments no recorder can store) ends with an `error` event carrying the error's code, so
 * the session answers its next prompt; a session taken over by another process is `session_in_use`.
 */
export async function* runSessionTurn(core: AgentCore, request: SessionTurnRequest): AsyncGenerator<AgentOutput> {
  const { options } = request;
  const { sessionId } = request.input;
  const admission = request.live ? { live: request.live, input: request.input } : await admitPrompt(core, request.input);
  if ('answer' in admission) return yield* admission.answer;
  // A command's turn (an MCP prompt) carries its own input in place of the user's.
  const { live, input } = admission;
  let queued: QueuedTurn | undefined;
  let failure: { error: unknown } | undefined;
  let completed = false;
  try {
    let announce = true;
    if (!request.live && live.running && (options.sendMode ?? core.settings.sendMode) === 'steer' && joins(live.running, options)) {
      const userEvent: AgentOutput = userMessageEvent(input);
      const absorbing = live.running.steering.push(toUserMessage(input.prompt), userEvent, options.signal);
      yield userEvent;
      const absorbed = await absorbing;
      if (absorbed || options.signal?.aborted) return yield { type: 'turn-end', sessionId, stopReason: absorbed ? 'end_turn' : 'cancelled' };
      // The turn ended before another model step: the message gets a turn of its own.
      await live.store.appendEvents(sessionId, [userEvent]);
      announce = false;
    }
    // Checked where the turn joins its session's queue, with no await between: a stop that began
    // during the admission (or the steering) finds no turn it did not wait for.
    if (!request.live && core.stopped) return yield* drainingAnswer(sessionId).answer;
    queued = new QueuedTurn(live, options.signal, options.turnKey);
    await queued.start();
    const { signal } = queued.controller;
    const early: AgentOutput[] = [];
    await core.extensions.ensure(sessionId, (event) => early.push(event));
    const runtime = options.runtime ?? (await core.runtimeFor(live.info.cwd));
    if (announce) yield await queued.record(userMessageEvent(input));
    // The adapter's model for the step (a client's routing), else the session's own.
    const sessionModel = async () => (await options.stepModel?.(live.info.options)) ?? core.sessionModel(live.info.options);
    const turn = await prepareTurn(core, live, input, { runtime, signal, overrides: request.overrides, sessionModel });
    if ('error' in turn) {
      yield await queued.record(turn.error);
    } else {
      const { context, pending, model, system } = turn;
      pending.unshift(...early);
      // Compaction: only what is sent to the model shrinks; the store keeps every message.
      for await (const event of compactTurnHistory({ live, config: core.settings, model, system, signal })) yield await queued.record(event);
      // Loaded with the first turn: the AI SDK stays out of a cold start.
      const { runTurn } = await import('./agent-loop.js');
      const loop = runTurn(turnLoopOptions(core, live, context, { model, system, overrides: request.overrides, sessionModel }));
      let stopReason: StopReason | 'error';
      while (true) {
        while (pending.length > 0) yield await queued.record(pending.shift()!);
        const next = await loop.next();
        if (next.done) {
          stopReason = next.value.stopReason;
          break;
        }
        yield await queued.record(next.value);
      }
      while (pending.length > 0) yield await queued.record(pending.shift()!);
      if (stopReason !== 'error') {
        await runTurnEndHooks(core, context, stopReason);
        while (pending.length > 0) yield await queued.record(pending.shift()!);
        // Cut short by the agent's stop (a replica shutting down past its grace): on record as interrupted, as after a crash.
        if (stopReason === 'cancelled' && signal.reason === STOPPING) yield await queued.record({ type: 'text-delta', sessionId, text: `\n\n${INTERRUPTED_MARK}` });
        yield await queued.record({ type: 'turn-end', sessionId, stopReason });
      }
    }
    completed = true;
  } catch (error) {
    failure = { error };
  } finally {
    const cleanupFailure = await queued?.end({ completed, failed: failure !== undefined });
    failure ??= cleanupFailure;
  }
  if (!failure) return;
  // Reached only when the consumer did not stop the turn itself: what went wrong, once, with the
  // error's own code (`session_in_use` when another process took the session over: the next request loads it again).
  yield { type: 'error', sessionId, error: errorInfo(failure.error, 'internal_error') };
}

/** A prompt with a turn key joins only a turn started with the same key (its task's); one without, any. */
function joins(running: NonNullable<LiveSession['running']>, options: ProcessOptions): boolean {
  return options.turnKey === undefined || running.key === options.turnKey;
}
