import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { Tool } from '../contracts/tool.js';
import { errorResult, textResult } from './tool-result.js';
import { errorMessage } from '../errors/error-message.js';
import { WebFetchError } from './web-fetch-error.js';

export interface WebFetchOptions {
  /** Hosts that may be fetched (`example.com`, `*.example.com`); undefined = any. The sandbox's `allowedDomains`. */
  allowedHosts?: readonly string[];
  /** Default 15 s. */
  timeoutMs?: number;
  /** Bytes of body read at most; default 50 KB. */
  maxBytes?: number;
}

export type WebFetchArgs = {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
};

export { WebFetchError } from './web-fetch-error.js';

/** `web_fetch`: HTTP GET/POST, HTML turned into readable text, with a time and a size cap. */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool<WebFetchArgs> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 50 * 1024;
  return defineTool({
    name: 'web_fetch',
    description: `Fetch a URL over HTTP(S) (GET or POST). HTML comes back as readable text; at most ${Math.round(maxBytes / 1024)} KB are read.`,
    parameters: z.object({
      url: z.string().describe('An absolute http:// or https:// URL'),
      method: z.enum(['GET', 'POST']).optional(),
      body: z.string().optional().describe('Request body for POST'),
      headers: z.record(z.string(), z.string()).optional(),
    }),
    risk: 'external',
    kind: 'fetch',
    title: (args) => `Fetch ${args.url}`,
    async execute(args, context) {
      try {
        const url = checkUrl(args.url, options.allowedHosts);
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = AbortSignal.any([context.signal, timeout]);
        let response: Response;
        try {
          response = await fetchWithinHosts(
            url,
            { method: args.method ?? 'GET', headers: args.headers, body: args.method === 'POST' ? args.body : undefined, signal },
            options.allowedHosts,
          );
          const { text, truncated } = await readCapped(response, maxBytes, signal);
          const type = response.headers.get('content-type') ?? '';
          const readable = type.includes('html') ? await htmlToText(text) : text;
          const head = `HTTP ${response.status} ${response.statusText} (${type || 'no content type'})${truncated ? `, truncated at ${maxBytes} bytes` : ''}`;
          return { ...textResult(`${head}\n\n${readable}`), ...(response.ok ? {} : { isError: true }) };
        } catch (error) {
          if (timeout.aborted && !context.signal.aborted) {
            throw new WebFetchError('timeout', `timed out after ${timeoutMs} ms fetching ${url.href}`, { cause: error });
          }
          throw error;
        }
      } catch (error) {
        if (error instanceof WebFetchError) return errorResult(`web_fetch failed (${error.code}): ${error.message}`);
        if (context.signal.aborted) throw error;
        const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
        return errorResult(`web_fetch failed (request_failed): ${errorMessage(error)}${cause}`);
      }
    },
  });
}

function checkUrl(raw: string, allowedHosts: readonly string[] | undefined): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebFetchError('bad_url', `not an absolute URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebFetchError('bad_url', `only http and https are fetched, not ${url.protocol}`);
  if (allowedHosts && !hostAllowed(url.hostname, allowedHosts)) {
    throw new WebFetchError('host_not_allowed', `the sandbox does not allow ${url.hostname} (allowed: ${allowedHosts.join(', ') || 'none'})`);
  }
  return url;
}

/** Redirect hops followed at most, as fetch itself does. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * fetch, following redirects. With a host list every hop is checked before it is requested:
 * fetch's own `redirect: 'follow'` would already have sent the request (a POST body included)
 * to a host that is not allowed, and only the final URL could be checked afterwards.
 */
async function fetchWithinHosts(
  url: URL,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; signal: AbortSignal },
  allowedHosts: readonly string[] | undefined,
): Promise<Response> {
  if (!allowedHosts) return fetch(url, { ...init, redirect: 'follow' });
  let current = url;
  let request = init;
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(current, { ...request, redirect: 'manual' });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) throw new WebFetchError('request_failed', `more than ${MAX_REDIRECTS} redirects fetching ${url.href}`);
    const next = checkUrl(new URL(location, current).href, allowedHosts);
    // As fetch does: a 303, or a 301/302 after a POST, goes on as a GET without a body, and
    // credentials are not sent to another origin.
    const asGet = response.status === 303 || (request.method === 'POST' && (response.status === 301 || response.status === 302));
    const headers = next.origin === current.origin ? request.headers : withoutCredentials(request.headers);
    request = asGet ? { ...request, method: 'GET', body: undefined, headers } : { ...request, headers };
    current = next;
  }
}

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(authorization|cookie|proxy-authorization)$/i.test(name)));
}

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p === '*') return true;
    if (p.startsWith('*.')) return name.endsWith(p.slice(1)) || name === p.slice(2);
    return name === p;
  });
}

/** Reads at most `maxBytes` of the body, then stops the download. */
async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      if (signal.aborted) throw signal.reason;
      const { value, done } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      if (value.byteLength >= room) {
        chunks.push(value.subarray(0, room));
        size += room;
        truncated = value.byteLength > room || !(await reader.read().then((next) => next.done));
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // A multi-byte character cut at the cap decodes to U+FFFD; that is acceptable for a preview.
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}

/** html-to-text and its parser (220 KB) load with the first HTML page, not with every start. */
async function htmlToText(html: string): Promise<string> {
  const { convert } = await import('html-to-text');
  return convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
}
