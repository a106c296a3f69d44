import { jsonSchema, streamText, type ModelMessage, type ToolSet } from 'ai';
import { convertToLanguageModelPrompt } from 'ai/internal';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import type { AgentErrorInfo, StopReason } from '../contracts/agent-output.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { AnyTool } from '../contracts/tool.js';
import { errorInfo } from './agent-notices.js';
import { toolArgumentTextProblem } from './tool-argument-limits.js';
import { untilAborted } from './until-aborted.js';
import { attachmentRetry } from './drop-refused-attachments.js';
import { LocalModelError } from '../model/local-model-error.js';
import { LLAMA_CPP_PROVIDER } from '../model/llama-cpp-provider-id.js';
import { describeModelCallError, isContextOverflow } from '../model/describe-model-call-error.js';
import { observeModelCall } from '../model/model-call-observer.js';

export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's call could not be parsed (bad JSON). */
  invalidReason?: string;
  /** What the provider attached to the call (Gemini's thought signature, the Responses item id): sent back with it. */
  providerMetadata?: SharedV3ProviderMetadata;
}

/**
 * One block of the reply, reasoning or text, as the provider streamed it (`id`: the stream's block
 * id), with what the provider attached to it: Anthropic's signature or redacted data, OpenAI's
 * reasoning or message item (its id, its phase), Gemini's thought signature. Each block goes back
 * on its own and unchanged: two signed blocks joined into one, a redacted one folded into a signed
 * one, or a reasoning item followed by a message that lost its id, are refused on the next step.
 */
export interface ReplyBlock {
  id: string;
  /** A text block after another one begins with the paragraph break the client was shown. */
  text: string;
  providerMetadata?: SharedV3ProviderMetadata;
}

/**
 * The reply's pieces in the order the provider sent them: reasoning and text blocks, and calls.
 * The assistant message keeps that order: OpenAI pairs a reasoning item with the item after it.
 */
export type ReplyPiece = ({ type: 'reasoning' | 'text' } & ReplyBlock) | { type: 'tool-call'; toolCallId: string };

export interface StepOutcome {
  text: string;
  pieces: ReplyPiece[];
  toolCalls: StepToolCall[];
  stopReason: StopReason;
  /** Input tokens include the cached ones; `cacheReadTokens`/`cacheWriteTokens` when the provider reports them. */
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  error?: AgentErrorInfo;
  /** Why the step ended early without an error (the prompt no longer fits a local model's context). */
  notice?: string;
  /** Set when an attachment was refused: the history the rest of the turn sends (without them). */
  sent?: ModelMessage[];
  /** The provider refused the request as longer than the model's context (`error` says so too). */
  contextOverflow?: boolean;
}

export type StepDelta =
  | { type: 'text-delta'; text: string }
  | { type: 'thought-delta'; text: string }
  /** What the model layer told while the call started (a retry after a 429, a download's progress). */
  | { type: 'notice'; level: 'info' | 'warning'; message: string };

export interface StepOptions {
  model: ResolvedLanguageModel;
  system: string | undefined;
  messages: ModelMessage[];
  tools: readonly AnyTool[];
  signal: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
  /** Past this many bytes of streamed text and reasoning the step is cut (`max_tokens`, with a notice). */
  maxReplyBytes?: number;
  /** The session the step belongs to: a local model keeps the session's evaluated prompt between steps and turns. */
  sessionId?: string;
}

/**
 * One model request. The loop owns policy, permission and execution, so a step only
 * streams the reply and hands back its tool calls. Failures come back in the outcome,
 * never thrown.
 *
 * Provider-spec v3 models are called directly: `streamText` validates the whole history
 * with zod on every step, which made a turn cost grow with the session (measured: most
 * of the loop's time after a few hundred turns). Older (v2) models go through `streamText`.
 */
export async function* streamModelStep(options: StepOptions): AsyncGenerator<StepDelta, StepOutcome> {
  const outcome: StepOutcome = {
    text: '',
    pieces: [],
    toolCalls: [],
    stopReason: 'end_turn',
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  const maxBytes = options.maxReplyBytes ?? Number.POSITIVE_INFINITY;
  let bytes = 0;
  let reader: ReadableStreamDefaultReader<StepPart> | undefined;
  let finished = false;
  try {
    reader = (await stepParts(options)).getReader();
    while (true) {
      // Raced with the signal: a provider that ignores abort (or a stalled stream) must not keep a cancelled turn going.
      const read = await untilAborted(reader.read(), options.signal);
      if (!read || read.done) {
        finished = Boolean(read);
        break;
      }
      const part = read.value;
      if (part.type === 'block' && part.text) {
        bytes += Buffer.byteLength(part.text, 'utf8');
        // Leaving the loop cancels the provider's stream: the rest is never read.
        if (bytes > maxBytes) return cutAtReplyCap(outcome, maxBytes);
      }
      const delta = applyPart(outcome, part, options.signal);
      if (delta) yield delta;
    }
  } catch (error) {
    if (!options.signal.aborted) fail(outcome, error);
  } finally {
    // Left early (aborted, the reply cap, a failed consumer): stop the provider's stream, or its socket keeps reading.
    if (reader && !finished) void reader.cancel().catch(() => undefined);
    reader?.releaseLock();
  }
  if (options.signal.aborted) outcome.stopReason = 'cancelled';
  const dropped = attachmentRetry(options, outcome, bytes > 0);
  if (!dropped) return outcome;
  // The provider refused an attachment: the rest of the turn sends the history without them (`sent`).
  const retried = yield* streamModelStep(dropped.retry);
  return { ...retried, notice: retried.notice ? `${dropped.notice}\n${retried.notice}` : dropped.notice, sent: dropped.retry.messages };
}

/** Adds one part to the outcome; a text or reasoning delta is also what the step streams on. */
function applyPart(outcome: StepOutcome, part: StepPart, signal: AbortSignal): StepDelta | undefined {
  switch (part.type) {
    case 'block':
      return addToBlock(outcome, part);
    case 'text-delta':
    case 'thought-delta':
    case 'notice':
      return part;
    case 'tool-call':
      outcome.toolCalls.push(part.call);
      outcome.pieces.push({ type: 'tool-call', toolCallId: part.call.toolCallId });
      return undefined;
    case 'finish':
      outcome.usage.inputTokens += part.inputTokens;
      outcome.usage.outputTokens += part.outputTokens;
      if (part.cacheReadTokens !== undefined) outcome.usage.cacheReadTokens = (outcome.usage.cacheReadTokens ?? 0) + part.cacheReadTokens;
      if (part.cacheWriteTokens !== undefined) outcome.usage.cacheWriteTokens = (outcome.usage.cacheWriteTokens ?? 0) + part.cacheWriteTokens;
      outcome.stopReason = mapFinishReason(part.finishReason);
      return undefined;
    case 'error':
      if (!signal.aborted) fail(outcome, part.error);
      return undefined;
  }
}

/**
 * A block's text or metadata, added to its block (a new one when its id is new). Its text streams
 * on: reasoning as a thought, text as the reply, where a text block after another begins with a
 * paragraph break (not glued: "…search for thatThe capital…"), which the block keeps.
 */
function addToBlock(outcome: StepOutcome, part: BlockPart): StepDelta | undefined {
  const { kind, id } = part;
  let block = outcome.pieces.findLast((piece): piece is ReplyPiece & ReplyBlock => piece.type === kind && piece.id === id);
  if (!block) {
    block = { type: kind, id, text: '' };
    outcome.pieces.push(block);
  }
  if (part.metadata) block.providerMetadata = mergeMetadata(block.providerMetadata, part.metadata);
  if (!part.text) return undefined;
  if (kind === 'reasoning') {
    block.text += part.text;
    return { type: 'thought-delta', text: part.text };
  }
  const breakFirst = block.text === '' && outcome.text !== '' && !outcome.text.endsWith('\n\n');
  const text = breakFirst ? `${outcome.text.endsWith('\n') ? '\n' : '\n\n'}${part.text}` : part.text;
  block.text += text;
  outcome.text += text;
  return { type: 'text-delta', text };
}

/**
 * The step's parts as one stream, mapped from the provider's own (no generator in between):
 * v3 models are called directly, older ones through `streamText`.
 */
async function stepParts(options: StepOptions): Promise<ReadableStream<StepPart>> {
  const { model } = options;
  if (model.specificationVersion === 'v3') {
    const toolNames = new Set(options.tools.map((tool) => tool.name));
    // What the model layer tells while the call starts (a retry after a 429, a download's
    // progress) goes first, as it happens; then the provider's parts. A failed call fails the stream.
    const { readable, writable } = new TransformStream<StepPart, StepPart>();
    const notices = writable.getWriter();
    const call = observeModelCall(
      (notice) => void notices.write({ type: 'notice', ...notice }).catch(() => undefined),
      async () => model.doStream(await stepCallOptions(model, options)),
    );
    call.then(
      ({ stream }) => {
        notices.releaseLock();
        void stream.pipeThrough(mapStream((part) => mapV3Part(part, toolNames))).pipeTo(writable).catch(() => undefined);
      },
      (error: unknown) => void notices.abort(error).catch(() => undefined),
    );
    return readable;
  }
  return legacyStream(options).pipeThrough(mapStream(mapLegacyPart));
}

function mapStream<I>(map: (part: I) => StepPart | undefined): TransformStream<I, StepPart> {
  return new TransformStream<I, StepPart>({
    transform(part, controller) {
      const mapped = map(part);
      if (mapped) controller.enqueue(mapped);
    },
  });
}

type StepPart =
  | StepDelta
  | { type: 'tool-call'; call: StepToolCall }
  | BlockPart
  | { type: 'finish'; finishReason: string; inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number }
  | { type: 'error'; error: unknown };

/**
 * A piece of one reasoning or text block (Anthropic's next text block, OpenAI's next message: a
 * preamble, then the answer): its start, its text, or what the provider attached to it
 * (Anthropic's signature arrives last, as an empty delta; OpenAI's item id with the start).
 */
interface BlockPart {
  type: 'block';
  kind: 'reasoning' | 'text';
  id: string;
  text?: string;
  metadata?: SharedV3ProviderMetadata;
}

/** The reply passed agent.maxReplyBytes: it ends there, without its (unfinished) tool calls, and the turn with it. */
function cutAtReplyCap(outcome: StepOutcome, maxBytes: number): StepOutcome {
  return {
    ...outcome,
    toolCalls: [],
    stopReason: 'max_tokens',
    notice: `The reply passed ${maxBytes} bytes (agent.maxReplyBytes) and was cut there; raise agent.maxReplyBytes for longer replies.`,
  };
}

/** A prompt that no longer fits a local model's context ends the step like the output cap does, with the reason: not an error. */
function fail(outcome: StepOutcome, error: unknown): void {
  if (LocalModelError.isInstance(error) && error.code === 'context_exceeded') {
    outcome.stopReason = 'max_tokens';
    outcome.notice = error.message;
    return;
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (LocalModelError.isInstance(cause) && cause.code === 'context_exceeded') return fail(outcome, cause);
  outcome.error = toErrorInfo(error);
  if (isContextOverflow(error)) outcome.contextOverflow = true;
}

/** The provider call of a step, as every v3 model receives it (and as a local model measures it). */
export async function stepCallOptions(model: LanguageModelV3, options: StepOptions): Promise<LanguageModelV3CallOptions> {
  const prompt = await convertToLanguageModelPrompt({
    prompt: { system: options.system, messages: options.messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal: options.signal,
  });
  return {
    prompt,
    tools: options.tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    })),
    toolChoice: options.tools.length > 0 ? { type: 'auto' } : undefined,
    abortSignal: options.signal,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    ...(options.sessionId ? { providerOptions: { [LLAMA_CPP_PROVIDER]: { sessionId: options.sessionId } } } : {}),
  };
}

function mapV3Part(part: LanguageModelV3StreamPart, toolNames: ReadonlySet<string>): StepPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return { type: 'block', kind: 'text', id: part.id, text: part.delta, metadata: part.providerMetadata };
    case 'text-start':
    case 'text-end':
      return { type: 'block', kind: 'text', id: part.id, metadata: part.providerMetadata };
    case 'reasoning-delta':
      return { type: 'block', kind: 'reasoning', id: part.id, text: part.delta, metadata: part.providerMetadata };
    case 'reasoning-start':
    case 'reasoning-end':
      return { type: 'block', kind: 'reasoning', id: part.id, metadata: part.providerMetadata };
    case 'tool-call': {
      if (part.providerExecuted) return undefined;
      const call: StepToolCall = {
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: {},
        ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
      };
      // Bounded before parsing: the text may be huge or nested deeper than any walker downstream survives.
      const tooBig = toolArgumentTextProblem(part.input);
      if (tooBig) return { type: 'tool-call', call: { ...call, invalidReason: tooBig } };
      try {
        call.input = part.input.trim() === '' ? {} : JSON.parse(part.input);
      } catch (error) {
        // An unknown tool is reported by the loop with the list of real tools; bad JSON here.
        if (toolNames.has(part.toolName)) {
          call.invalidReason = `could not parse the arguments as JSON (${(error as Error).message}): ${part.input.slice(0, 200)}`;
        }
      }
      return { type: 'tool-call', call };
    }
    case 'finish':
      return {
        type: 'finish',
        finishReason: part.finishReason.unified,
        inputTokens: part.usage.inputTokens.total ?? 0,
        outputTokens: part.usage.outputTokens.total ?? 0,
        cacheReadTokens: part.usage.inputTokens.cacheRead,
        cacheWriteTokens: part.usage.inputTokens.cacheWrite,
      };
    case 'error':
      return { type: 'error', error: part.error };
    default:
      return undefined;
  }
}

function legacyStream(options: StepOptions) {
  const toolSet: ToolSet = {};
  for (const tool of options.tools) {
    toolSet[tool.name] = { description: tool.description, inputSchema: jsonSchema(tool.inputSchema) };
  }
  const result = streamText({
    model: options.model,
    system: options.system,
    messages: options.messages,
    tools: options.tools.length > 0 ? toolSet : undefined,
    abortSignal: options.signal,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    maxRetries: 1,
    onError: () => {},
  });
  return result.fullStream;
}

type LegacyPart = ReturnType<typeof legacyStream> extends ReadableStream<infer P> ? P : never;

function mapLegacyPart(part: LegacyPart): StepPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return { type: 'block', kind: 'text', id: part.id, text: part.text, metadata: part.providerMetadata };
    case 'text-start':
    case 'text-end':
      return { type: 'block', kind: 'text', id: part.id, metadata: part.providerMetadata };
    case 'reasoning-delta':
      return { type: 'block', kind: 'reasoning', id: part.id, text: part.text, metadata: part.providerMetadata };
    case 'reasoning-start':
    case 'reasoning-end':
      return { type: 'block', kind: 'reasoning', id: part.id, metadata: part.providerMetadata };
    case 'tool-call': {
      const invalid = 'invalid' in part && part.invalid && part.error !== undefined;
      const unknownTool = invalid && part.error instanceof Error && part.error.name === 'AI_NoSuchToolError';
      return {
        type: 'tool-call',
        call: {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input ?? {},
          ...(invalid && !unknownTool ? { invalidReason: `could not parse the arguments (${String(part.error)})` } : {}),
        },
      };
    }
    case 'finish-step':
      return { type: 'finish', finishReason: part.finishReason, inputTokens: part.usage.inputTokens ?? 0, outputTokens: part.usage.outputTokens ?? 0 };
    case 'error':
      return { type: 'error', error: part.error };
    default:
      return undefined;
  }
}

/** Later pieces of a provider's reasoning metadata win, key by key (the signature comes last). */
function mergeMetadata(into: SharedV3ProviderMetadata | undefined, more: SharedV3ProviderMetadata): SharedV3ProviderMetadata {
  const merged: SharedV3ProviderMetadata = { ...into };
  for (const [provider, values] of Object.entries(more)) merged[provider] = { ...merged[provider], ...values };
  return merged;
}

function mapFinishReason(reason: string): StopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

function toErrorInfo(error: unknown): AgentErrorInfo {
  const described = describeModelCallError(error);
  if (described) return { code: 'model_call_failed', message: described.message, reason: described.reason };
  const { code, message } = errorInfo(error, error instanceof Error && error.name.startsWith('AI_') ? 'model_call_failed' : 'internal_error');
  // The cause adds what the message lacks; a message that already quotes it (ModelError's do) is left alone.
  const cause = error instanceof Error && error.cause instanceof Error && !message.includes(error.cause.message) ? ` (${error.cause.message})` : '';
  return { code, message: `${message}${cause}` };
}
