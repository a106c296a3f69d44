import { APICallError, LoadAPIKeyError } from '@ai-sdk/provider';
import { MODEL_PROVIDER_TABLE, modelProviderOf, providerKeyEnvs } from './model-providers.js';
import { ATTEMPTS_HEADER, KEY_SOURCE_HEADER, PROVIDER_HEADER, QUOTA_SPENT, WEB_PAGE_MESSAGE } from './model-fetch.js';
import { describeStreamError } from './describe-stream-error.js';
import { causeChain } from '../errors/cause-chain.js';
import { ModelError } from './model-error.js';

const BASE_URL_HINT = 'set agent.baseURL or --base-url to the server\'s OpenAI-compatible API, which usually ends in /v1 (e.g. http://127.0.0.1:11434/v1 for Ollama)';

/** A native provider's API, told by the path its SDK calls (whatever the host: proxies and --base-url keep the path). */
const NATIVE_PATHS = [
  { pattern: /\/messages$/, name: 'anthropic', label: 'Anthropic', home: 'https://api.anthropic.com/v1', keyEnv: MODEL_PROVIDER_TABLE.anthropic.keyEnv, example: 'anthropic:claude-sonnet-4-5' },
  { pattern: /\/responses$/, name: 'openai', label: 'OpenAI', home: 'https://api.openai.com/v1', keyEnv: MODEL_PROVIDER_TABLE.openai.keyEnv, example: 'openai:gpt-5-mini' },
  { pattern: /:(?:stream)?[gG]enerateContent\b/, name: 'google', label: 'Gemini', home: 'https://generativelanguage.googleapis.com/v1beta', keyEnv: MODEL_PROVIDER_TABLE.google.keyEnv, example: 'google:gemini-2.5-flash' },
] as const;

/**
 * Why a model call failed, for a program to act on (the error's `reason` beside its code
 * `model_call_failed`): the key was refused or missing, the endpoint could not be reached, it
 * timed out, limited the rate or spent the quota, the prompt overflowed the context, the model or
 * the API is not there, the reply broke off, or the provider failed.
 */
export type ModelCallFailureReason =
  | 'auth'
  | 'missing_key'
  | 'unreachable'
  | 'timeout'
  | 'rate_limited'
  | 'quota'
  | 'context_overflow'
  | 'model_not_found'
  | 'wrong_endpoint'
  | 'interrupted'
  | 'provider_error';

export interface ModelCallFailure {
  reason: ModelCallFailureReason;
  /** The cause and the fix, naming the URL called (never a key). */
  message: string;
}

/**
 * A failed call to a model endpoint, said so that a user can act on it: the URL that was
 * called, what came back, and the fix, with the reason in one word. Other errors pass through
 * unchanged (`undefined`). A bare "Unsupported method ('POST')" or "fetch failed" names neither
 * the URL nor the fix.
 */
export function describeModelCallError(error: unknown): ModelCallFailure | undefined {
  if (LoadAPIKeyError.isInstance(error)) return { reason: 'missing_key', message: describeMissingKey(error.message) };
  if (!APICallError.isInstance(error)) {
    const message = describeStreamError(error);
    return message === undefined ? undefined : { reason: /rate[ _-]?limit|\b429\b/i.test(message) ? 'rate_limited' : 'provider_error', message };
  }
  return describeApiCallError(error);
}

function describeApiCallError(error: APICallError): ModelCallFailure {
  const { url, statusCode } = error;
  const native = NATIVE_PATHS.find((api) => api.pattern.test(pathOf(url)));
  const timedOut = describeTimeout(error, url);
  if (timedOut) return { reason: 'timeout', message: timedOut };
  if (statusCode === undefined) {
    const fix =
      connectionFix(error) ??
      (native
        ? `check the network (and any proxy); --base-url or agent.baseURL, when set, must point at the ${native.label} API (by default ${native.home})`
        : `${refusedConnection(error) ? 'connection refused, nothing listens there: ' : ''}is the model server running? If it is, ${BASE_URL_HINT}`);
    return { reason: 'unreachable', message: `Cannot reach the model endpoint ${url} (${causeOf(error)}): ${fix}.` };
  }
  if (error.message === WEB_PAGE_MESSAGE) {
    const title = /<title[^>]*>([^<]{1,120})/i.exec(error.responseBody ?? '')?.[1]?.trim();
    return {
      reason: 'wrong_endpoint',
      message:
        `The model endpoint ${url} answered a web page (HTTP ${statusCode}, text/html${title ? `: "${title}"` : ''}) instead of the API: ` +
        'a proxy, firewall or login page stands in between, or the base URL leads to a website. Check --base-url / agent.baseURL and any HTTPS_PROXY.',
    };
  }
  if (statusCode >= 200 && statusCode < 300) {
    // The reply had begun: the connection broke (or the body stopped parsing) mid-stream.
    return { reason: 'interrupted', message: `The model endpoint ${url} stopped mid-reply (${causeOf(error)}): what arrived was shown; send the prompt again.` };
  }
  const detail = `${error.message}`.slice(0, 300);
  const attempts = Number(error.responseHeaders?.[ATTEMPTS_HEADER] ?? 1);
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (statusCode === 429 && QUOTA_SPENT.test(`${detail} ${error.responseBody ?? ''}`)) {
    return {
      reason: 'quota',
      message:
        `Out of quota: ${url} answered HTTP 429 (${detail}): the account's quota or credit is spent, which waiting does not cure; ` +
        "check the plan and billing with the provider, or use another key (agent.apiKey or the provider's key variable) or model (--model).",
    };
  }
  if (statusCode === 429) {
    return {
      reason: 'rate_limited',
      message:
        `Rate limited: ${url} answered HTTP 429${tries} (${detail}): wait a moment and send the prompt again; ` +
        'fewer calls at once (agent.maxConcurrentModelCalls) or more patience (agent.retries: attempts, maxTotalMs) may help, or a higher quota with the provider.',
    };
  }
  if ((statusCode === 400 || statusCode === 413) && CONTEXT_TOO_LONG.test(`${detail} ${error.responseBody ?? ''}`)) {
    return {
      reason: 'context_overflow',
      message:
        `The conversation no longer fits the model's context (HTTP ${statusCode}: ${detail}): start a new session, or set agent.contextWindow ` +
        "to the model's window in tokens so the history is compacted before it is sent.",
    };
  }
  if (statusCode === 401 || statusCode === 403 || (native?.name === 'google' && statusCode === 400 && /API key/i.test(detail))) {
    return { reason: 'auth', message: `The model endpoint ${url} refused the API key (HTTP ${statusCode}: ${detail}): ${keyFix(error, native?.keyEnv)}` };
  }
  if (statusCode === 404 && (native || mentionsModel(error.responseBody))) {
    const example = native ? ` (e.g. ${native.example})` : '';
    return { reason: 'model_not_found', message: `Model not found: ${url} answered HTTP 404 (${detail}): check the model name in --model or agent.model${example}.` };
  }
  if (statusCode >= 500 && statusCode !== 501 && statusCode !== 505) {
    return { reason: 'provider_error', message: `The model endpoint ${url} failed (HTTP ${statusCode}${tries}: ${detail}): the service is down or overloaded; send the prompt again later, or use another model (--model).` };
  }
  if (native && (statusCode === 405 || statusCode === 501 || !looksLikeJson(error.responseBody))) {
    return { reason: 'wrong_endpoint', message: `The model endpoint ${url} is not the ${native.label} API (HTTP ${statusCode}: ${detail}): --base-url or agent.baseURL, when set, must point at it (by default ${native.home}).` };
  }
  if (statusCode === 404 || statusCode === 405 || statusCode === 501 || !looksLikeJson(error.responseBody)) {
    return { reason: 'wrong_endpoint', message: `The model endpoint ${url} is not an OpenAI-compatible chat API (HTTP ${statusCode}: ${detail}): ${BASE_URL_HINT}, and check the model name.` };
  }
  return { reason: 'provider_error', message: `The model endpoint ${url} failed (HTTP ${statusCode}: ${detail}).` };
}

/** A provider's refusal of a request longer than the model's context (HTTP 400/413 saying so). */
export function isContextOverflow(error: unknown): boolean {
  if (!APICallError.isInstance(error) || (error.statusCode !== 400 && error.statusCode !== 413)) return false;
  return CONTEXT_TOO_LONG.test(`${error.message} ${error.responseBody ?? ''}`);
}

/**
 * Where to look for the refused key: the one place that supplied it (the config's agent.apiKey,
 * or the variable it was read from), else every place it is read from. Never the key itself.
 */
function keyFix(error: APICallError, nativeKeyEnv: string | undefined): string {
  const keyEnv = nativeKeyEnv ?? modelProviderOf(`${error.responseHeaders?.[PROVIDER_HEADER] ?? ''}:`)?.keyEnv;
  const places = keyEnv && keyEnv !== 'PLAITED_API_KEY' ? `${keyEnv} or agent.apiKey` : 'agent.apiKey or PLAITED_API_KEY';
  const source = error.responseHeaders?.[KEY_SOURCE_HEADER];
  if (source === 'none') return `no key was sent: set one (${places}).`;
  const from = source === 'agent.apiKey' ? 'agent.apiKey in the config' : source ? `the ${source} variable` : undefined;
  return `check the key (${places})${from ? `: this one came from ${from}` : ''}.`;
}

/** A call `timedFetch` gave up on (no reply, or a stalled stream), naming the setting that allows longer. */
function describeTimeout(error: Error, url: string): string | undefined {
  const timeout = [...causeChain(error)].find((cause) => ModelError.isInstance(cause) && cause.code === 'model_call_timeout');
  if (!timeout) return undefined;
  const setting = /agent\.modelTimeouts\.\w+/.exec(String(timeout.message))?.[0] ?? 'agent.modelTimeouts';
  const why =
    (timeout.context as { phase?: string } | undefined)?.phase === 'stream'
      ? 'the reply stalled (what arrived was shown)'
      : 'it took the request but went quiet (stuck or overloaded; a local server may still be loading the model)';
  return `The model endpoint ${url} ${String(timeout.message)}: ${why}. Send the prompt again, or give it longer with ${setting}.`;
}

/** The SDK's "Pass it using the 'apiKey' parameter or the X environment variable", in the config's words. */
function describeMissingKey(message: string): string {
  const envVar = /the (\w+) environment variable/.exec(message)?.[1];
  const what = message.split('. ')[0] ?? message;
  const provider = Object.values(MODEL_PROVIDER_TABLE).find((info) => 'keyEnv' in info && info.keyEnv === envVar);
  const names = provider ? providerKeyEnvs(provider).join(' or ') : envVar;
  return envVar ? `${what}: set ${names} (or agent.apiKey in .plaited/config.ts), then start the agent again.` : message;
}

/** Providers' words for a prompt over the model's context window. */
const CONTEXT_TOO_LONG = /context[ _](length|window)|prompt is too long|too many tokens|maximum context|input token count|exceeds the (context|maximum)/i;

/** Certificate checks that fail on a self-signed, private-CA or TLS-inspecting proxy's certificate. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** The fix for a connection that failed on a name or a certificate, where "is the server running?" would mislead. */
function connectionFix(error: Error): string | undefined {
  const code = [...causeChain(error)].map((cause) => cause.code).find((value): value is string => typeof value === 'string');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "the host name does not resolve: check the network and its DNS, and the host in --base-url or agent.baseURL when set";
  if (code !== undefined && UNTRUSTED_CERTIFICATE.has(code)) {
    return "the endpoint's TLS certificate is not trusted here: for your own server, or a company proxy that inspects TLS, start the agent with NODE_EXTRA_CA_CERTS=/path/to/ca.pem";
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'ERR_TLS_CERT_ALTNAME_INVALID') return "the endpoint's TLS certificate is expired or names another host: check the host in --base-url or agent.baseURL";
  return undefined;
}

/** The endpoint's host answered that nothing listens on the port (a local server that is not started). */
function refusedConnection(error: Error): boolean {
  return [...causeChain(error)].some((cause) => cause.code === 'ECONNREFUSED');
}

/** The innermost of two causes (fetch's "terminated" wraps undici's "other side closed"). */
function causeOf(error: Error): string {
  const cause = error.cause instanceof Error ? (error.cause.cause instanceof Error ? error.cause.cause.message : error.cause.message) : error.message;
  // Fetch turns a 407 into a network error without a word: the likeliest reason, said.
  return cause === '' ? 'no reason given: a proxy that wants authentication (HTTP 407) ends a call this way' : cause;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A JSON error body about a model (`The model `x` does not exist`, `model 'x' not found`). */
function mentionsModel(body: string | undefined): boolean {
  return body !== undefined && looksLikeJson(body) && /\bmodel\b/i.test(body);
}

function looksLikeJson(body: string | undefined): boolean {
  if (body === undefined) return true;
  const start = body.trimStart()[0];
  return start === '{' || start === '[';
}
