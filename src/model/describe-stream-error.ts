/**
 * An error a provider sent inside a reply that had begun (HTTP 200), said so that a user can act
 * on it. The providers' SDKs pass such an event on as its plain payload, not an `Error`:
 *  - Anthropic's `event: error` (`{ type: 'overloaded_error', message: 'Overloaded' }`), which it
 *    sends when it is overloaded after the stream started;
 *  - an OpenAI-compatible chunk `{ error: { message, code } }` (OpenRouter, Groq, LiteLLM: the
 *    upstream provider failed mid-reply).
 * Anything else (an `Error`, a string) is not one of these: `undefined`.
 */
export function describeStreamError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || error instanceof Error) return undefined;
  const payload = error as { type?: unknown; code?: unknown; message?: unknown; error?: unknown };
  const inner = typeof payload.error === 'object' && payload.error !== null ? (payload.error as typeof payload) : payload;
  const message = typeof inner.message === 'string' ? inner.message : typeof payload.error === 'string' ? payload.error : undefined;
  const kind = [inner.type, inner.code].find((value) => typeof value === 'string' || typeof value === 'number');
  if (message === undefined && kind === undefined) return undefined;
  const what = [kind, message].filter((part) => part !== undefined).join(': ');
  return `The model's provider sent an error in the middle of its reply (${what.slice(0, 300)}): what arrived was shown; ${fixFor(`${String(kind ?? '')} ${message ?? ''}`)}`;
}

function fixFor(text: string): string {
  if (/overloaded|server_error|api_error|internal|unavailable|\b5\d\d\b/i.test(text)) {
    return 'the service is overloaded or failing; send the prompt again later, or use another model (--model).';
  }
  if (/rate[ _-]?limit|quota|\b429\b/i.test(text)) return 'rate limited: wait a moment and send the prompt again.';
  if (/auth|permission|api key|\b40[13]\b/i.test(text)) return 'check the API key (agent.apiKey or the provider\'s key variable).';
  return 'send the prompt again; if it keeps failing, use another model (--model).';
}
