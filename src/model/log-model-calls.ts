import type { LanguageModelV3FinishReason, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { ResolvedLanguageModel } from './resolve-model.js';
import { errorMessage } from '../errors/error-message.js';
import { describeModelCallError } from './describe-model-call-error.js';

type Level = 'error' | 'warn' | 'info' | 'debug';
type Log = (level: Level, message: string, fields?: Record<string, unknown>) => void;

/** What one model call did, as logged (and as the telemetry spans record it). */
export interface ModelStepRecord {
  provider: string;
  model: string;
  inputTokens?: number;
  outputTokens?: number;
  latencyMs: number;
  stopReason?: string;
  error?: string;
  /** Why the call failed, in one word (`auth`, `unreachable`, …: describe-model-call-error.ts). */
  reason?: string;
}

/**
 * Wraps a model so each call is logged: at debug one line per step (provider, model, tokens
 * in and out, latency, stop reason), at `failures` (default warn) every failed call (thrown, or an
 * error part in the stream). Models of an older specification are returned as they are.
 */
export async function logModelCalls(model: ResolvedLanguageModel, log: Log, failures: Level = 'warn'): Promise<ResolvedLanguageModel> {
  const done = (record: ModelStepRecord) => {
    if (record.error !== undefined) {
      log(failures, `model call to ${record.provider} ${record.model} failed after ${Math.round(record.latencyMs)} ms: ${record.error}`, { event: 'model-error', ...record });
      return;
    }
    const tokens = `${record.inputTokens ?? '?'} in / ${record.outputTokens ?? '?'} out tokens`;
    log('debug', `model step: ${record.provider} ${record.model}, ${tokens}, ${Math.round(record.latencyMs)} ms, stop: ${record.stopReason ?? 'unknown'}`, { event: 'model-step', ...record });
  };
  return watchModelCalls(model, () => done);
}

/**
 * Wraps a model so each call is watched: `start` runs as the call begins (in the caller's async
 * context) and returns what to do with the call's record when it ends (finished or failed).
 */
export async function watchModelCalls(model: ResolvedLanguageModel, start: () => (record: ModelStepRecord) => void): Promise<ResolvedLanguageModel> {
  if (model.specificationVersion !== 'v3') return model;
  const { wrapLanguageModel } = await import('ai');
  const who = { provider: model.provider, model: model.modelId };
  const wrapped = wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate, params }) => {
        const done = start();
        const started = performance.now();
        try {
          const result = await doGenerate();
          done({ ...who, ...usageOf(result.usage), latencyMs: performance.now() - started, stopReason: reasonOf(result.finishReason) });
          return result;
        } catch (error) {
          done(failed(who, started, error, params.abortSignal));
          throw error;
        }
      },
      wrapStream: async ({ doStream, params }) => {
        const done = start();
        const started = performance.now();
        let result;
        try {
          result = await doStream();
        } catch (error) {
          done(failed(who, started, error, params.abortSignal));
          throw error;
        }
        let record: ModelStepRecord | undefined;
        const watch = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'finish') record = { ...who, ...usageOf(part.usage), latencyMs: 0, stopReason: reasonOf(part.finishReason) };
            else if (part.type === 'error') record = failed(who, started, part.error, params.abortSignal);
            controller.enqueue(part);
          },
          flush() {
            done({ ...(record ?? { ...who, stopReason: 'no finish' }), latencyMs: performance.now() - started });
          },
        });
        return { ...result, stream: result.stream.pipeThrough(watch) };
      },
    },
  });
  return keepExtras(model, wrapped);
}

/** The wrapper keeps what the model offers beyond the specification (a local model's `measurePrompt`). */
function keepExtras(model: ResolvedLanguageModel, wrapped: ResolvedLanguageModel): ResolvedLanguageModel {
  const target = wrapped as unknown as Record<string, unknown>;
  for (let proto: object | null = model; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor' || key in target) continue;
      const value = (model as unknown as Record<string, unknown>)[key];
      target[key] = typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(model) : value;
    }
  }
  return wrapped;
}

/** A call that threw: cancelled by its caller (not a failure, nothing to warn about) or failed. */
function failed(who: { provider: string; model: string }, started: number, error: unknown, signal: AbortSignal | undefined): ModelStepRecord {
  const latencyMs = performance.now() - started;
  if (signal?.aborted) return { ...who, latencyMs, stopReason: 'cancelled' };
  // The cause and fix a user reads (the URL, never the key), and the reason in a word for a log query.
  const described = describeModelCallError(error);
  return described ? { ...who, latencyMs, error: described.message, reason: described.reason } : { ...who, latencyMs, error: errorMessage(error) };
}

function usageOf(usage: LanguageModelV3Usage | undefined): Pick<ModelStepRecord, 'inputTokens' | 'outputTokens'> {
  return { inputTokens: usage?.inputTokens.total, outputTokens: usage?.outputTokens.total };
}

function reasonOf(reason: LanguageModelV3FinishReason | string | undefined): string | undefined {
  return typeof reason === 'string' ? reason : reason?.unified;
}
