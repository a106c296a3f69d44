const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * Whether the bind host means every interface. A module of its own: the command line asks it of
 * every start (a2a-options.ts), and the Host/Origin check beside it loads the MCP server SDK.
 */
export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host.trim());
}
