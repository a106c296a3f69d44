import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import type { AgentErrorInfo, AgentOutput, StopReason } from '../contracts/agent-output.js';
import type { SessionMode } from './agent.js';
import type { ToolCallSummary } from './agent-extension.js';
import type { PermissionContext, ToolPolicy } from './tool-policy.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import type { BackgroundProcesses } from '../tools/background-processes.js';
import type { OnToolCallHook } from '../contracts/agent-hooks.js';
import type { SteeringQueue } from './steering-queue.js';
import { EventChannel } from './event-channel.js';
import { authorizeToolCalls, type ApprovedCall } from './authorize-tool-calls.js';
import { parseTextToolCalls, textToolPrompt, textToolResults, ToolCallTextFilter } from './text-tool-calls.js';
import { executeToolCall } from './execute-tool-call.js';
import { capToolResult } from './cap-tool-result.js';
import { errorInfo } from './agent-notices.js';
import type { StepOptions, StepOutcome, StepToolCall } from './stream-model-step.js';
import { callIdsOf, uniqueCallIds } from './unique-call-ids.js';
import { streamModelStep } from './stream-model-step.js';
import { TurnText } from './turn-text.js';
import { fitStepToContext } from './fit-step-to-context.js';
import type { HistoryMeasure } from './compact-turn-history.js';
import { toModelOutput } from './tool-result-output.js';
import { toolCallKind, toolCallTitle } from './tool-call-display.js';
import { RunningToolCalls } from './running-tool-calls.js';
import { boundToolCall } from './tool-argument-limits.js';
import { unansweredCallResults } from './unanswered-call-results.js';

export interface TurnOptions {
  sessionId: string;
  model: ResolvedLanguageModel;
  /** When set, asked before every step: the session's model may change mid-turn. */
  modelForStep?: () => Promise<ResolvedLanguageModel>;
  system: string | undefined;
  /** The history sent to the model, ending with the new user message. */
  messages: ModelMessage[];
  /** Called before every model step: tools can change mid-turn (search_tools activates more). */
  tools(): Promise<AnyTool[]>;
  policy: ToolPolicy;
  mode(): SessionMode;
  permissions: PermissionContext;
  runtime: Runtime;
  allowedRoots: readonly string[];
  signal: AbortSignal;
  maxSteps: number;
  temperature?: number;
  maxOutputTokens?: number;
  /** Past this many bytes of streamed text and reasoning a step is cut, and the turn ends `max_tokens`. */
  maxReplyBytes?: number;
  /** Most text one tool result brings the model; past it the result is cut with a note (cap-tool-result.ts). */
  maxToolResultChars?: number;
  /** `xml`: tools are described in the system prompt and calls parsed from `<tool_call>` blocks. */
  toolCallFormat?: 'native' | 'xml';
  /** The extensions' `onToolCall` hooks, in order (agent-hooks.ts `toolCallHooks`): the first decision wins. */
  hooks?: { onToolCall: readonly OnToolCallHook[] };
  /** A hook failed: reported as a notice, the call goes on as if it had not decided. */
  onHookError?(hook: string, error: unknown): void;
  /**
   * The provider refused the turn's first step as longer than its context: the turn's prompt may
   * leave the model-facing history when it is what overflowed. Answers what was done, for the
   * error's message, or `undefined` when the history stays as it is.
   */
  onPromptOverflow?: () => Promise<string | undefined>;
  /** Messages produced by a finished step (assistant + tool results), for persistence. */
  /** Awaited: the step's messages are stored before the turn goes on. */
  onStepMessages?(messages: ModelMessage[]): void | Promise<void>;
  onToolResult?(call: ToolCallSummary): Promise<void> | void;
  /** Between steps: may compact the history; returns the history to continue with when it did. */
  compact?(step: { lastInputTokens: number; added: readonly ModelMessage[]; measure?: HistoryMeasure }): AsyncGenerator<AgentOutput, ModelMessage[] | undefined>;
  /** Messages that arrived while the turn ran: injected before the next step; they supersede unapproved calls. */
  steering?: SteeringQueue;
  /** Where running calls are registered, so one can be cancelled alone (`Agent.cancelToolCall`). */
  runningCalls?: RunningToolCalls;
  /** The agent's background commands, handed to tools (bash `background: true`, bash_output, bash_kill). */
  background?: BackgroundProcesses;
}

export interface TurnResult {
  stopReason: StopReason | 'error';
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
}

/** What a turn carries from step to step. */
interface TurnState {
  messages: ModelMessage[];
  usage: TurnResult['usage'] & { contextTokens: number };
  /** The tool-call ids the session holds: a new call gets one of its own (unique-call-ids.ts). */
  callIds: Set<string>;
  /** What the turn has shown: a later step's text begins a paragraph of its own. */
  text: TurnText;
}

/**
 * One user turn, in the shape of pi-mono's agent loop: take steering, run a model step
 * (its deltas stream straight through), and when it asked for tools authorize them, execute
 * the approved ones in parallel and report every result; repeat until the model stops or
 * `maxSteps` is hit. A plain async generator: it pauses with its consumer, and every await
 * honours `signal`. A model failure ends the stream with an `error` event; nothing is thrown.
 */
export async function* runTurn(options: TurnOptions): AsyncGenerator<AgentOutput, TurnResult> {
  const { sessionId, signal } = options;
  const turn: TurnState = { messages: [...options.messages], usage: { inputTokens: 0, outputTokens: 0, contextTokens: 0 }, callIds: callIdsOf(options.messages), text: new TurnText() };
  for (let step = 1; ; step++) {
    yield* takeSteering(options, turn);
    const prepared = await prepareStep(options, turn);
    if ('error' in prepared) {
      yield prepared.error;
      return { stopReason: 'error', usage: turn.usage };
    }
    const { stepOptions, byName } = prepared;
    // A local model's context is fixed: the step must fit it, or the history is compacted, or the turn ends.
    const fitted = yield* fitStepToContext(stepOptions, options.compact);
    if (fitted.stop) {
      yield { type: 'notice', sessionId, level: 'warning', message: fitted.stop };
      return yield* finalize(options, turn, 'max_tokens');
    }
    if (fitted.messages) turn.messages = stepOptions.messages = fitted.messages;

    const filter = options.toolCallFormat === 'xml' ? new ToolCallTextFilter() : undefined;
    turn.text.step();
    const model = streamModelStep(stepOptions);
    let next = await model.next();
    for (; !next.done; next = await model.next()) {
      const part = next.value;
      if (part.type === 'notice') {
        yield { ...part, sessionId };
        continue;
      }
      if (part.type === 'thought-delta') {
        yield { type: part.type, sessionId, text: part.text };
        continue;
      }
      const text = filter ? filter.push(part.text) : part.text;
      if (text) yield { type: 'text-delta', sessionId, text: turn.text.show(text) };
    }
    const rest = filter?.flush();
    if (rest) yield { type: 'text-delta', sessionId, text: turn.text.show(rest) };
    const { outcome, calls, assistant } = takeOutcome(options, turn, next.value);
    if (outcome.notice) yield { type: 'notice', sessionId, level: 'warning', message: outcome.notice };
    if (outcome.error && !signal.aborted) {
      // The turn's prompt alone overflowed the model before it read a word: it leaves the history, or every later prompt would fail too.
      const dropped = step === 1 && !assistant && outcome.contextOverflow && (await options.onPromptOverflow?.());
      yield* failStep(options, turn, assistant, dropped ? { ...outcome.error, message: `${outcome.error.message} ${dropped}` } : outcome.error);
      return { stopReason: 'error', usage: turn.usage };
    }
    if (calls.length === 0) {
      if (assistant) await options.onStepMessages?.([assistant]);
      // A message sent while this last step streamed is answered in this turn, one step more, not
      // handed back to run as a turn of its own (whose answer a task's peer never saw).
      if (!signal.aborted && step < options.maxSteps && options.steering?.pending) {
        if (assistant) turn.messages.push(assistant);
        continue;
      }
      return yield* finalize(options, turn, signal.aborted ? 'cancelled' : outcome.stopReason);
    }

    const resultMessage = yield* runToolCalls(options, calls, byName);
    const stepMessages: ModelMessage[] = assistant ? [assistant, resultMessage] : [resultMessage];
    turn.messages.push(...stepMessages);
    await options.onStepMessages?.(stepMessages);
    if (signal.aborted) return yield* finalize(options, turn, 'cancelled');
    if (step >= options.maxSteps) return yield* finalize(options, turn, 'max_turn_requests');
    if (options.compact) {
      const compacted = yield* options.compact({ lastInputTokens: outcome.usage.inputTokens, added: stepMessages });
      if (compacted) turn.messages = compacted;
    }
  }
}

/** Messages that arrived while the turn ran join before the next step, yielded where the model sees them. */
async function* takeSteering(options: TurnOptions, turn: TurnState): AsyncGenerator<AgentOutput> {
  const steering = options.steering?.take() ?? [];
  if (steering.length === 0) return;
  for (const { event } of steering) yield event;
  const injected = steering.map(({ message }) => message);
  turn.messages.push(...injected);
  await options.onStepMessages?.(injected);
}

/** The step's model (it may change mid-turn), its tools (they may too) and the request. */
async function prepareStep(
  options: TurnOptions,
  turn: TurnState,
): Promise<{ stepOptions: StepOptions; byName: Map<string, AnyTool> } | { error: AgentOutput }> {
  const xml = options.toolCallFormat === 'xml';
  const tools = await options.tools();
  const toolPrompt = xml ? textToolPrompt(tools) : '';
  let model = options.model;
  try {
    if (options.modelForStep) model = await options.modelForStep();
  } catch (error) {
    return { error: { type: 'error', sessionId: options.sessionId, error: errorInfo(error, 'model_unavailable') } };
  }
  const stepOptions: StepOptions = {
    model,
    system: toolPrompt ? [options.system, toolPrompt].filter(Boolean).join('\n\n') : options.system,
    messages: turn.messages,
    tools: xml ? [] : tools,
    signal: options.signal,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    maxReplyBytes: options.maxReplyBytes,
    sessionId: options.sessionId,
  };
  return { stepOptions, byName: new Map(tools.map((tool) => [tool.name, tool])) };
}

/** The step's outcome counted into the turn: usage, the history it sent, its bounded calls and the assistant message. */
function takeOutcome(options: TurnOptions, turn: TurnState, outcome: StepOutcome) {
  // The provider refused an attachment: the rest of the turn sends the history without them.
  if (outcome.sent) turn.messages = outcome.sent;
  turn.usage.inputTokens += outcome.usage.inputTokens;
  // What the last step's context held: its prompt plus what it wrote.
  turn.usage.contextTokens = outcome.usage.inputTokens + outcome.usage.outputTokens;
  turn.usage.outputTokens += outcome.usage.outputTokens;
  addCacheTokens(turn.usage, outcome.usage);
  const xml = options.toolCallFormat === 'xml';
  if (!xml) uniqueCallIds(outcome, turn.callIds);
  // Arguments over the size or depth bound are dropped here, before any event or message holds them.
  const calls = (xml ? parseTextToolCalls(outcome.text) : outcome.toolCalls).map(boundToolCall);
  return { outcome, calls, assistant: assistantMessage(outcome, xml ? [] : calls) };
}

/** A failed reply is kept with a result for each of its calls (never a call without one: the next request would be refused). */
async function* failStep(options: TurnOptions, turn: TurnState, assistant: AssistantModelMessage | undefined, error: AgentErrorInfo): AsyncGenerator<AgentOutput> {
  if (assistant) {
    const failed = unansweredCallResults(assistant, `Not run: the model's reply failed (${error.message}).`);
    const stepMessages = failed ? [assistant, failed] : [assistant];
    turn.messages.push(...stepMessages);
    await options.onStepMessages?.(stepMessages);
  }
  yield { type: 'error', sessionId: options.sessionId, error };
}

/** The turn's end: its usage, then its stop reason. */
function* finalize(options: TurnOptions, turn: TurnState, stopReason: StopReason): Generator<AgentOutput, TurnResult> {
  yield usageEvent(options.sessionId, turn.usage);
  return { stopReason, usage: turn.usage };
}

/**
 * The step's tool calls: announced, authorized (hooks, policy, the user), the approved ones
 * executed in parallel, and every call's result reported. Every call gets a result, even when
 * cancelled: the history must stay valid for the next turn.
 */
async function* runToolCalls(options: TurnOptions, calls: StepToolCall[], byName: Map<string, AnyTool>): AsyncGenerator<AgentOutput, ModelMessage> {
  const { sessionId, signal } = options;
  for (const call of calls) {
    const tool = byName.get(call.toolName);
    const title = toolCallTitle(tool, call);
    const locations = locationsOf(tool, call, options.runtime.cwd);
    yield { type: 'tool-call', sessionId, toolCallId: call.toolCallId, toolName: call.toolName, title, kind: toolCallKind(tool), status: 'pending', input: call.input, locations };
  }
  const { approved, results } = yield* authorizeToolCalls({
    sessionId,
    cwd: options.runtime.cwd,
    calls,
    byName,
    policy: options.policy,
    mode: options.mode(),
    permissions: options.permissions,
    signal,
    hooks: options.hooks?.onToolCall ?? [],
    steering: options.steering,
    onHookError: (error) => options.onHookError?.('onToolCall', error),
    preview: async (tool, args) => tool.preview?.(args, { runtime: options.runtime, allowedRoots: options.allowedRoots, signal }),
  });
  const cancelledCalls = new Set<string>();
  yield* runApprovedCalls(options, approved, results, cancelledCalls);
  return yield* reportResults(options, { calls, byName, results, cancelledCalls, approved });
}

/** Runs the approved calls in parallel; their progress events interleave through one channel. Results land in `results`. */
async function* runApprovedCalls(
  options: TurnOptions,
  approved: readonly ApprovedCall[],
  results: Map<string, ToolResult>,
  cancelledCalls: Set<string>,
): AsyncGenerator<AgentOutput, void> {
  const { sessionId, signal } = options;
  const runningCalls = options.runningCalls ?? new RunningToolCalls();
  const channel = new EventChannel<AgentOutput>();
  const running = Promise.all(
    approved.map(async ({ call, tool, args }) => {
      if (signal.aborted) return; // reported as cancelled() below
      // Its own signal, linked to the turn's: cancelling this call alone leaves the turn running.
      const running = runningCalls.start(sessionId, call.toolCallId, signal);
      channel.push({ type: 'tool-call-update', sessionId, toolCallId: call.toolCallId, status: 'in_progress', cancellable: true });
      try {
        const result = capToolResult(await executeToolCall({
          tool,
          args,
          toolCallId: call.toolCallId,
          sessionId,
          runtime: options.runtime,
          allowedRoots: options.allowedRoots,
          signal: running.signal,
          push: (event) => channel.push(event),
          background: options.background,
        }), options.maxToolResultChars);
        if (running.cancelled()) cancelledCalls.add(call.toolCallId);
        results.set(call.toolCallId, running.cancelled() ? cancelledByUser(result) : result);
      } finally {
        running.finish();
      }
    }),
  ).finally(() => channel.close());
  for await (const event of channel) yield event;
  await running;
}

/**
 * Every call's result, in call order: extensions and hooks see it, the client gets its final
 * update, and the model one tool message (or, for text tool calls, one user message).
 */
async function* reportResults(
  options: TurnOptions,
  step: {
    calls: readonly StepToolCall[];
    byName: ReadonlyMap<string, AnyTool>;
    results: ReadonlyMap<string, ToolResult>;
    cancelledCalls: ReadonlySet<string>;
    approved: readonly ApprovedCall[];
  },
): AsyncGenerator<AgentOutput, ModelMessage> {
  const { sessionId } = options;
  const { calls, byName, results, cancelledCalls } = step;
  const xml = options.toolCallFormat === 'xml';
  const argsUsed = new Map(step.approved.map(({ call, args }) => [call.toolCallId, args]));
  const toolMessage: ToolModelMessage = { role: 'tool', content: [] };
  const textResults: Array<{ call: StepToolCall; text: string; isError: boolean }> = [];
  for (const call of calls) {
    const result = results.get(call.toolCallId) ?? cancelled();
    const tool = byName.get(call.toolName);
    // What the client shows is fixed before extensions see the result: they may append
    // context for the model only (the rules extension adds nested AGENTS.md files).
    const display = result.display ?? result.content.flatMap((part) => (part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : []));
    const output = result.structured ?? textOf(result);
    if (tool) await observeResult(options, call, tool, argsUsed.get(call.toolCallId) ?? call.input, result);
    yield {
      type: 'tool-call-update',
      sessionId,
      toolCallId: call.toolCallId,
      status: result.isError ? 'failed' : 'completed',
      ...(cancelledCalls.has(call.toolCallId) ? { cancelled: true } : {}),
      content: display,
      ...(result.locations ? { locations: result.locations } : {}),
      output,
    };
    if (xml) {
      textResults.push({ call, text: textOf(result), isError: Boolean(result.isError) });
    } else {
      toolMessage.content.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: toModelOutput(result),
      });
    }
  }
  return xml ? { role: 'user', content: [{ type: 'text', text: textToolResults(textResults) }] } : toolMessage;
}

/** Extensions (`onToolResult`, the config's hooks among them) see a result; a failing hook is reported, never fatal. */
async function observeResult(options: TurnOptions, call: StepToolCall, tool: AnyTool, args: unknown, result: ToolResult): Promise<void> {
  await options.onToolResult?.({
    toolCallId: call.toolCallId,
    toolName: tool.name,
    risk: tool.risk,
    source: tool.source,
    args,
    result,
    locations: result.locations ?? locationsOf(tool, call, options.runtime.cwd) ?? [],
  });
}

/** The result of a call that never ran because the turn was cancelled first (fresh: extensions may append to it). */
function cancelled(): ToolResult {
  return { content: [{ type: 'text', text: 'Cancelled before it ran.' }], isError: true };
}

/** A call the user cancelled alone: the model is told so (with what it printed), and the turn goes on. */
function cancelledByUser(result: ToolResult): ToolResult {
  const before = textOf(result).trim();
  const text = `The user cancelled this tool call while it ran; it did not finish. The turn goes on.${before ? `\nIts result when stopped:\n${before}` : ''}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The reply as the history keeps it, in the order the provider sent it: each reasoning and text
 * block with what the provider attached (a signature, redacted data, an item id), the calls (with
 * their own metadata). `calls`: those the turn runs, bounded; any the stream did not place go last.
 */
function assistantMessage(outcome: StepOutcome, calls: readonly StepToolCall[]): AssistantModelMessage | undefined {
  const content: Exclude<AssistantModelMessage['content'], string> = [];
  const unplaced = [...calls];
  for (const piece of outcome.pieces) {
    if (piece.type === 'tool-call') {
      const at = unplaced.findIndex((call) => call.toolCallId === piece.toolCallId);
      if (at >= 0) content.push(toolCallPart(unplaced.splice(at, 1)[0]!));
    } else if (piece.type === 'reasoning' ? piece.text || piece.providerMetadata : piece.text.trim() || piece.providerMetadata) {
      // A redacted thinking block has no text, only its data. A text block of white space alone
      // (Anthropic's "\n\n" before a tool use) is nothing, and Anthropic refuses it on its own.
      content.push({ type: piece.type, text: piece.text, ...(piece.providerMetadata ? { providerOptions: piece.providerMetadata } : {}) });
    }
  }
  for (const call of unplaced) content.push(toolCallPart(call));
  return content.length > 0 ? { role: 'assistant', content } : undefined;
}

function toolCallPart(call: StepToolCall) {
  return { type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ...(call.providerMetadata ? { providerOptions: call.providerMetadata } : {}) };
}

function locationsOf(tool: AnyTool | undefined, call: StepToolCall, cwd: string) {
  if (!tool?.locations) return undefined;
  try {
    return tool.locations(call.input, cwd);
  } catch {
    return undefined;
  }
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType}]`)).join('\n');
}

function usageEvent(sessionId: string, usage: TurnResult['usage'] & { contextTokens: number }): AgentOutput {
  return {
    type: 'usage',
    sessionId,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    contextTokens: usage.contextTokens,
    ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
  };
}

/** Prompt-cache tokens (a provider's cache reads and writes), summed over the turn's steps when reported. */
function addCacheTokens(usage: TurnResult['usage'], step: TurnResult['usage']): void {
  if (step.cacheReadTokens !== undefined) usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + step.cacheReadTokens;
  if (step.cacheWriteTokens !== undefined) usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + step.cacheWriteTokens;
}
