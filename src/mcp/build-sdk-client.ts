import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { McpClientOptions, McpListKind } from './mcp-client-options.js';

/**
 * A fresh SDK client for one connect attempt: it announces only the capabilities the options
 * back (roots, sampling, elicitation), answers those requests through the options, and passes
 * the server's notifications on (`listChanged` gets the list_changed ones, to debounce them).
 */
export function buildSdkClient(serverId: string, options: McpClientOptions, listChanged: (kind: McpListKind) => void): Client {
  const capabilities: ClientCapabilities = {};
  if (options.roots) capabilities.roots = { listChanged: true };
  if (options.onSampling) capabilities.sampling = {};
  if (options.onElicitation) capabilities.elicitation = { form: {} };
  const client = new Client(options.clientInfo ?? { name: 'plaited-agent', version: '0.1.0' }, { capabilities });
  const roots = options.roots;
  if (roots) {
    client.setRequestHandler('roots/list', () => ({
      roots: roots().map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) || dir })),
    }));
  }
  const onSampling = options.onSampling;
  if (onSampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) => onSampling(request.params, { serverId, signal: ctx.mcpReq.signal }));
  }
  const onElicitation = options.onElicitation;
  if (onElicitation) {
    client.setRequestHandler('elicitation/create', (request, ctx) => onElicitation(request.params, { serverId, signal: ctx.mcpReq.signal }));
  }
  client.setNotificationHandler('notifications/tools/list_changed', () => listChanged('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', () => listChanged('resources'));
  client.setNotificationHandler('notifications/prompts/list_changed', () => listChanged('prompts'));
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    options.onResourceUpdated?.(notification.params.uri);
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    const { level, logger, data } = notification.params;
    options.onLog?.({ serverId, level, logger, data });
  });
  return client;
}
