import { ownPackageJson } from '../config/own-package-json.js';

/**
 * The version a face announces (ACP `agentInfo`, the MCP server's info, the A2A card): the one
 * its options give (the CLI's), else this package's own, so a face served from a program does
 * not say `0.0.0`.
 */
export function agentVersion(given: string | undefined): string {
  return given ?? ownPackageJson()?.version ?? '0.0.0';
}
