/**
 * A base URL with a user and password (`https://user:pass@models.example/v1`, a server behind
 * basic auth): fetch refuses such a URL outright ("Request cannot be constructed from a URL that
 * includes credentials", quoting the password). The base goes to the SDK without them and they
 * go as an `Authorization: Basic` header, unless `agent.headers` sets one.
 */
export function splitBaseURLCredentials(baseURL: string): { base: string; authorization: string | undefined; password: string | undefined } {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return { base: baseURL, authorization: undefined, password: undefined };
  }
  if (url.username === '' && url.password === '') return { base: baseURL, authorization: undefined, password: undefined };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  // URL keeps a trailing slash on a bare origin; the SDKs strip it anyway.
  return { base: url.href, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, password: password || undefined };
}

/** `headers` with the base URL's basic auth added, unless they set an Authorization of their own. */
export function withBasicAuth(headers: Record<string, string> | undefined, authorization: string | undefined): Record<string, string> | undefined {
  return authorization && !setsAuthorization(headers) ? { ...headers, Authorization: authorization } : headers;
}

/** Whether `headers` (`agent.headers`, a named model's) carry an Authorization of their own. */
export function setsAuthorization(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}
