/**
 * A base URL's query string (`?api-version=2024-10-21`, as Azure OpenAI and some gateways are
 * addressed), kept apart from the base: the providers' SDKs append their paths to the base as
 * text, which put the path inside the query (`…?api-version=2024-10-21/chat/completions`).
 * The base goes to the SDK without it; `withBaseURLQuery` adds it to every URL the SDK calls.
 */
export function splitBaseURLQuery(baseURL: string): { base: string; query: URLSearchParams | undefined } {
  const mark = baseURL.indexOf('?');
  if (mark === -1) return { base: baseURL, query: undefined };
  const hash = baseURL.indexOf('#', mark);
  const query = new URLSearchParams(baseURL.slice(mark + 1, hash === -1 ? undefined : hash));
  return { base: baseURL.slice(0, mark), query: [...query.keys()].length > 0 ? query : undefined };
}

/** `fetch` that adds `query`'s parameters to each request's URL. */
export function withBaseURLQuery(fetch: typeof globalThis.fetch, query: URLSearchParams | undefined): typeof globalThis.fetch {
  if (!query) return fetch;
  return (input, init) => {
    const url = withQuery(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, query);
    return fetch(input instanceof Request ? new Request(url, input) : url, init);
  };
}

/** `url` with `query`'s parameters added (those it has already win). */
export function withQuery(url: string, query: URLSearchParams): string {
  const out = new URL(url);
  for (const [name, value] of query) if (!out.searchParams.has(name)) out.searchParams.append(name, value);
  return out.href;
}
