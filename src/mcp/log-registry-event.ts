import type { McpRegistryEvent } from './mcp-registry-types.js';

type Log = (level: 'error' | 'warn' | 'info' | 'debug', message: string) => void;

/**
 * What the registry is doing, for the operator's log: each server's connection progress and
 * what each catalog sync indexed (counts and time) at info, failures at warn. Session servers
 * are named with their session, so a client's servers are told apart from the config's.
 */
export function logRegistryEvent(log: Log, event: McpRegistryEvent): void {
  const server = `MCP server "${event.serverId}"${event.sessionId ? ` (session ${event.sessionId})` : ''}`;
  switch (event.type) {
    case 'server-status':
      if (event.error) log('warn', `${server} ${event.status}: ${event.error.message}`);
      else if (event.status === 'connecting' || event.status === 'connected' || event.status === 'reconnecting') log('info', `${server}: ${event.status}`);
      else log('debug', `${server}: ${event.status}`);
      return;
    case 'catalog-indexed': {
      const { counts, report } = event;
      const changes = `${report.added} new, ${report.updated} changed, ${report.removed} removed, ${report.unchanged} unchanged`;
      log(
        'info',
        `${server}: indexed ${counts.tools} tools, ${counts.resources} resources, ${counts.prompts} prompts (${changes}) in ${Math.round(event.durationMs)} ms`,
      );
      return;
    }
    case 'catalog-error':
      log('warn', `${server}: ${event.error.message}`);
      return;
    case 'name-collision':
      log('warn', `${server}: two tools normalize to "${event.name}"; "${event.tool}" is offered as "${event.offeredAs}"`);
      return;
    case 'server-shadowed':
      log('info', `${server} is the one this session uses; the config's "${event.shadowed}" is left out of it and stays for the other sessions`);
      return;
    case 'catalog-item-skipped':
      log('warn', `${server}: ${event.method} item "${event.name}" is left out (${event.reason}); the rest of the catalog is indexed`);
      return;
  }
}
