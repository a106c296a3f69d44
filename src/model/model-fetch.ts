import { setTimeout as sleep } from 'node:timers/promises';
import { APICallError } from '@ai-sdk/provider';
import type { ModelCallLimiter } from './model-call-limiter.js';
import { currentModelCallObserver } from './model-call-observer.js';
import { backoffMs, retryableStatus, retryAfterMs } from './retry-delay.js';
import { DEFAULT_MODEL_TIMEOUTS, timedFetch, type ModelTimeouts } from './timed-fetch.js';
import { formatDuration } from './format-duration.js';
import { watchedBody } from './watched-body.js';
import { blankValues, secretValues } from '../tools/redact-secrets.js';

/** Socket errors that mean the connection was dead before the server answered anything. */
const STALE_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** The header a reply that failed after retries carries: how many attempts were made (errors say so). */
export const ATTEMPTS_HEADER = 'x-plaited-attempts';
/** The header a failed reply carries: the provider (table name) it came from, so its error names the right key variable. */
export const PROVIDER_HEADER = 'x-plaited-provider';
/** The header a failed reply carries: where the call's key came from (`agent.apiKey`, a variable's name, `none`), never the key. */
export const KEY_SOURCE_HEADER = 'x-plaited-key-source';

/** `agent.retries`: attempts in all (the first included) and the time they may take together. */
export interface ModelRetryPolicy {
  attempts: number;
  maxTotalMs: number;
}

export const DEFAULT_MODEL_RETRIES: ModelRetryPolicy = { attempts: 4, maxTotalMs: 60_000 };

/**
 * The `fetch` an HTTP model provider calls:
 *  - each call first takes a slot of `limiter` (waiting in line, or leaving the line when its
 *    request is aborted) and holds it until the response body is read to its end, fails or is
 *    cancelled, so the cap counts open connections, streams included;
 *  - a call that fails on a stale keep-alive socket (the server closed an idle connection,
 *    typically while this process was busy: "other side closed") before any byte of a response
 *    arrived is sent once more at once, on a fresh connection: the pool drops the dead socket first;
 *  - a reply of 429, 408/409 or 5xx, or a connection reset, is retried with exponential backoff
 *    and jitter, or after the server's `retry-after`/`retry-after-ms`, within `retries` (attempts
 *    and total time); the wait ends with the request's abort signal, and each retry is told to
 *    the turn's observer as a notice. 400/401/403/404 are answered at once;
 *  - an endpoint that says nothing for `timeouts` (no reply, or a stalled stream) fails the call
 *    naming the setting (timed-fetch.ts), unretried.
 */
export function createModelFetch(limiter: ModelCallLimiter, options: ModelFetchOptions = {}): typeof fetch {
  const base = options.base ?? ((input, init) => globalThis.fetch(input, init));
  const limited = limitedFetch(limiter, timedFetch(base, { ...DEFAULT_MODEL_TIMEOUTS, ...options.timeouts }));
  const blanked = secretValues(options.secrets ?? []);
  const marks = { provider: options.provider, keySource: options.keySource };
  return async (input, init) => marked(await withRetries(limited, input, init, options.retries ?? DEFAULT_MODEL_RETRIES), marks, blanked, urlOf(input));
}

export interface ModelFetchOptions {
  /** The fetch underneath (tests; by default the global one). */
  base?: typeof fetch;
  retries?: ModelRetryPolicy;
  /** `agent.modelTimeouts`, over the defaults. */
  timeouts?: Partial<ModelTimeouts>;
  /** The provider's table name, marked on failed replies (their error names its key variable). */
  provider?: string;
  /** Where the key came from (`agent.apiKey`, a variable's name, `none`), marked on failed replies: a refused key's error names it. */
  keySource?: string;
  /** Values the calls carry that no error may repeat (the API key, header values): a failed reply's body has them blanked. */
  secrets?: ReadonlyArray<string | undefined>;
}

function limitedFetch(limiter: ModelCallLimiter, base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const release = await limiter.acquire(signal);
    signal?.addEventListener('abort', release, { once: true });
    let response: Response;
    try {
      response = await base(input, init).catch((error: unknown) => {
        if (!retryable(error, init)) throw error;
        return base(input, init);
      });
    } catch (error) {
      release();
      throw error;
    }
    return watchedBody(response, { onEnd: release });
  };
}

async function withRetries(call: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, policy: ModelRetryPolicy): Promise<Response> {
  const started = Date.now();
  const signal = init?.signal ?? undefined;
  for (let attempt = 1; ; attempt++) {
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await call(input, init);
      if (!retryableStatus(response.status)) return response;
      if (response.status === 429) {
        // Read once, handed on whole: a quota that is spent is not a rate limit that passes.
        const body = await response.text().catch(() => '');
        response = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
        if (QUOTA_SPENT.test(body)) return response;
      }
    } catch (error) {
      if (signal?.aborted || !retryable(error, init)) throw error;
      failure = error;
    }
    const wait = (response && retryAfterMs(response.headers)) ?? backoffMs(attempt);
    const last = attempt >= policy.attempts || !replayable(init) || Date.now() - started + wait > policy.maxTotalMs;
    if (last) {
      if (!response) throw failure;
      if (attempt === 1) return response;
      const headers = new Headers(response.headers);
      headers.set(ATTEMPTS_HEADER, String(attempt));
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    }
    await response?.body?.cancel().catch(() => undefined);
    const what = response ? `answered HTTP ${response.status}${response.status === 429 ? ' (rate limited)' : ''}` : `dropped the connection (${socketCode(failure)})`;
    currentModelCallObserver()?.({
      level: 'warning',
      message: `The model endpoint ${urlOf(input)} ${what}: retrying in ${formatDuration(wait)} (attempt ${attempt + 1} of ${policy.attempts}).`,
    });
    await sleep(wait, undefined, { signal });
  }
}

/**
 * A failed reply, marked with the provider it came from (the error's description reads it), its
 * body without the call's secrets: some servers and proxies echo the key they refused
 * ("Invalid key Bearer sk-…"), and the body becomes the error the client sees and the session keeps.
 */
async function marked(response: Response, marks: { provider?: string; keySource?: string }, secrets: readonly string[], url: string): Promise<Response> {
  const { provider, keySource } = marks;
  if (response.ok && /^text\/html\b/i.test(response.headers.get('content-type') ?? '')) throw await webPageError(response, url);
  if (response.ok || (!provider && !keySource && secrets.length === 0)) return response;
  const headers = new Headers(response.headers);
  if (provider) headers.set(PROVIDER_HEADER, provider);
  if (keySource) headers.set(KEY_SOURCE_HEADER, keySource);
  if (secrets.length === 0 || !response.body) return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  const body = blankValues(await response.text().catch(() => ''), secrets);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * A web page where the API's reply belongs (HTTP 200, text/html): a proxy's or Wi-Fi portal's
 * login page, or a base URL that leads to a website. Left to the SDK, it read as a stream that
 * "ended without a finish reason"; as an APICallError the describer names what came instead.
 */
async function webPageError(response: Response, url: string): Promise<APICallError> {
  const page = (await response.text().catch(() => '')).slice(0, 2000);
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (responseHeaders[name] = value));
  return new APICallError({
    message: WEB_PAGE_MESSAGE,
    url,
    requestBodyValues: {},
    statusCode: response.status,
    responseHeaders,
    responseBody: page,
    isRetryable: false,
  });
}

/** The message of the error `webPageError` makes (the describer tells it by this). */
export const WEB_PAGE_MESSAGE = 'the endpoint answered a web page (text/html), not the API';

/**
 * A 429 that waiting does not cure: the account's quota or credit is spent (OpenAI's
 * `insufficient_quota`, "check your plan and billing details"). Answered at once, never retried.
 */
export const QUOTA_SPENT = /insufficient_quota|exceeded your current quota|check your plan and billing|billing details/i;

/** A body sent again must still be there: the AI SDK sends strings. */
function replayable(init: RequestInit | undefined): boolean {
  return init?.body === undefined || init.body === null || typeof init.body === 'string';
}

function socketCode(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : 'connection reset';
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}


function retryable(error: unknown, init: RequestInit | undefined): boolean {
  if (init?.signal?.aborted) return false;
  // A body that is a stream was consumed by the first attempt; the AI SDK sends strings.
  if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') return false;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && STALE_SOCKET_CODES.has(cause.code);
}
