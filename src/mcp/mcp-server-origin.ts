import { createHash } from 'node:crypto';
import type { McpServerConfig } from '../config/schema.js';
import type { ToolOrigin } from '../contracts/tool.js';

/** Enough of a command line to recognise it in a question; the key covers all of it. */
const MAX_LABEL_LENGTH = 120;

/**
 * The identity permission rules remember for a server's tools: its transport and command, args
 * and cwd, or its URL without credentials, query or fragment. Taken from the config as written
 * (`${TOKEN}` unexpanded, see expand-server-variables.ts), and never from env or headers: those
 * hold secrets, and the rules file keeps this label. Two servers an editor and a config both call
 * `github` but that run different things get different keys.
 */
export function mcpServerOrigin(server: McpServerConfig): ToolOrigin {
  const what = server.transport === 'stdio' ? [server.command ?? '', ...server.args].join(' ') : urlWithoutSecrets(server.url ?? '');
  const parts = server.transport === 'stdio' ? [server.transport, server.command ?? '', server.args, server.cwd ?? null] : [server.transport, urlWithoutSecrets(server.url ?? '')];
  const key = `sha256:${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
  const label = what.length > MAX_LABEL_LENGTH ? `${what.slice(0, MAX_LABEL_LENGTH - 1)}…` : what;
  return { key, name: server.id, label };
}

/** Origin and path: a user name and password, a `?api_key=` or a `#token` stay out of the label and the key. */
function urlWithoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
