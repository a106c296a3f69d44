import type { PlaitedConfig } from '../config/schema.js';
import type { AnyTool } from '../contracts/tool.js';

/** The built-in tools (file, search, bash) plus web_fetch, loaded on first use. */
export async function loadDefaultTools(config: PlaitedConfig): Promise<AnyTool[]> {
  const [{ createBuiltinTools }, { createWebFetchTool }] = await Promise.all([
    import('../tools/builtin-tools.js'),
    import('../tools/web-fetch-tool.js'),
  ]);
  const sandbox = config.adapters.sandbox;
  return [
    ...createBuiltinTools({ bash: { ...config.agent.bash, envPassthrough: config.tools.env.passthrough } }),
    createWebFetchTool({
      ...config.agent.webFetch,
      // Inside the sandbox only its allowed domains are reachable: refuse the rest with a clear reason.
      ...(sandbox.enabled ? { allowedHosts: sandbox.security.allowedDomains } : {}),
    }),
  ];
}
