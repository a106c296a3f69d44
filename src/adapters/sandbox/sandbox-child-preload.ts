import { ProxyAgent, setGlobalDispatcher } from 'undici';

/**
 * Loaded with `--import` (Node; Bun takes it as `--preload`) into the agent that runs inside the whole-agent
 * sandbox, before the CLI. Two jobs:
 *
 * 1. The sandbox has no network of its own; the only way out is the proxy whose
 *    address the sandbox puts in HTTPS_PROXY. Node 20's fetch ignores those
 *    variables, so the model client would find no network at all. Route every
 *    fetch through the proxy, which enforces the allow list (the model host is
 *    on it). NO_PROXY is deliberately not honoured: loopback inside the sandbox
 *    is empty, so a local model endpoint is reachable only through the proxy.
 * 2. Die with the connection: when the client closes stdin and nothing else
 *    ends the process, exit instead of lingering inside the sandbox.
 *
 * It never writes to stdout (the protocol's) and reads nothing from stdin.
 */
const proxy = process.env.HTTPS_PROXY ?? process.env.https_proxy ?? process.env.HTTP_PROXY ?? process.env.http_proxy;
if (proxy) {
  if (typeof process.versions.bun === 'string') {
    // Bun's fetch is its own (no undici dispatcher): its per-request `proxy` option sends
    // requests through the proxy, except to NO_PROXY hosts, which Bun honours even then.
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    const bunFetch = globalThis.fetch;
    globalThis.fetch = Object.assign((input: Parameters<typeof fetch>[0], init?: RequestInit) => bunFetch(input, { ...init, proxy } as RequestInit), bunFetch);
  } else {
    setGlobalDispatcher(new ProxyAgent({ uri: proxy }));
  }
}

// Listening for 'end' does not start reading; the adapter's own reader does, and
// 'end' arrives after it has consumed everything.
process.stdin.once('end', () => {
  setTimeout(() => process.exit(0), 2_000).unref();
});
