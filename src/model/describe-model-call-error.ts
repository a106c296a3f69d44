import { APICallError } from '@ai-sdk/provider';

const BASE_URL_HINT = 'set agent.baseURL or --base-url to the server\'s OpenAI-compatible API, which usually ends in /v1 (e.g. http://127.0.0.1:11434/v1 for Ollama)';

/**
 * A failed call to a model endpoint, said so that a user can act on it: the URL that was
 * called, what came back, and the fix. Other errors pass through unchanged (`undefined`).
 * A bare "Unsupported method ('POST')" or "fetch failed" names neither the URL nor the fix.
 */
export function describeModelCallError(error: unknown): string | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const { url, statusCode } = error;
  if (statusCode === undefined) {
    const cause = error.cause instanceof Error ? (error.cause.cause instanceof Error ? error.cause.cause.message : error.cause.message) : error.message;
    return `Cannot reach the model endpoint ${url} (${cause}): is the model server running? If it is, ${BASE_URL_HINT}.`;
  }
  const detail = `${error.message}`.slice(0, 300);
  if (statusCode === 401 || statusCode === 403) {
    return `The model endpoint ${url} refused the request (HTTP ${statusCode}: ${detail}): check the API key (agent.apiKey or PLAITED_API_KEY).`;
  }
  if (statusCode === 404 || statusCode === 405 || statusCode === 501 || !looksLikeJson(error.responseBody)) {
    return `The model endpoint ${url} is not an OpenAI-compatible chat API (HTTP ${statusCode}: ${detail}): ${BASE_URL_HINT}, and check the model name.`;
  }
  return `The model endpoint ${url} failed (HTTP ${statusCode}: ${detail}).`;
}

function looksLikeJson(body: string | undefined): boolean {
  if (body === undefined) return true;
  const start = body.trimStart()[0];
  return start === '{' || start === '[';
}
