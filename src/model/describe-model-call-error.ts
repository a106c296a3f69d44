import { APICallError } from '@ai-sdk/provider';
import { MODEL_PROVIDER_TABLE } from './model-providers.js';

const BASE_URL_HINT = 'set agent.baseURL or --base-url to the server\'s OpenAI-compatible API, which usually ends in /v1 (e.g. http://127.0.0.1:11434/v1 for Ollama)';

/** A native provider's API, told by the path its SDK calls (whatever the host: proxies and --base-url keep the path). */
const NATIVE_PATHS = [
  { pattern: /\/messages$/, name: 'anthropic', keyEnv: MODEL_PROVIDER_TABLE.anthropic.keyEnv, example: 'anthropic:claude-sonnet-4-5' },
  { pattern: /\/responses$/, name: 'openai', keyEnv: MODEL_PROVIDER_TABLE.openai.keyEnv, example: 'openai:gpt-5-mini' },
  { pattern: /:(?:stream)?[gG]enerateContent\b/, name: 'google', keyEnv: MODEL_PROVIDER_TABLE.google.keyEnv, example: 'google:gemini-2.5-flash' },
] as const;

/**
 * A failed call to a model endpoint, said so that a user can act on it: the URL that was
 * called, what came back, and the fix. Other errors pass through unchanged (`undefined`).
 * A bare "Unsupported method ('POST')" or "fetch failed" names neither the URL nor the fix.
 */
export function describeModelCallError(error: unknown): string | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const { url, statusCode } = error;
  if (statusCode === undefined) {
    return `Cannot reach the model endpoint ${url} (${causeOf(error)}): is the model server running? If it is, ${BASE_URL_HINT}.`;
  }
  if (statusCode >= 200 && statusCode < 300) {
    // The reply had begun: the connection broke (or the body stopped parsing) mid-stream.
    return `The model endpoint ${url} stopped mid-reply (${causeOf(error)}): what arrived was shown; send the prompt again.`;
  }
  const detail = `${error.message}`.slice(0, 300);
  const native = NATIVE_PATHS.find((api) => api.pattern.test(pathOf(url)));
  if (statusCode === 401 || statusCode === 403 || (native?.name === 'google' && statusCode === 400 && /API key/i.test(detail))) {
    const key = native ? `${native.keyEnv} or agent.apiKey` : 'agent.apiKey or PLAITED_API_KEY';
    return `The model endpoint ${url} refused the API key (HTTP ${statusCode}: ${detail}): check the key (${key}).`;
  }
  if (statusCode === 404 && (native || mentionsModel(error.responseBody))) {
    const example = native ? ` (e.g. ${native.example})` : '';
    return `Model not found: ${url} answered HTTP 404 (${detail}): check the model name in --model or agent.model${example}.`;
  }
  if (statusCode === 404 || statusCode === 405 || statusCode === 501 || !looksLikeJson(error.responseBody)) {
    return `The model endpoint ${url} is not an OpenAI-compatible chat API (HTTP ${statusCode}: ${detail}): ${BASE_URL_HINT}, and check the model name.`;
  }
  return `The model endpoint ${url} failed (HTTP ${statusCode}: ${detail}).`;
}

/** The innermost of two causes (fetch's "terminated" wraps undici's "other side closed"). */
function causeOf(error: Error): string {
  return error.cause instanceof Error ? (error.cause.cause instanceof Error ? error.cause.cause.message : error.cause.message) : error.message;
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
