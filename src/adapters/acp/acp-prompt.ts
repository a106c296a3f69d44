import type * as acp from '@agentclientprotocol/sdk';
import type { ContentPart } from '../../contracts/agent-output.js';
import type { McpServerConfig } from '../../config/schema.js';

/** ACP prompt content → the agent's protocol-neutral content parts. */
export function fromContentBlocks(blocks: readonly acp.ContentBlock[]): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push({ type: 'image', data: block.data, mimeType: block.mimeType, ...(block.uri ? { uri: block.uri } : {}) });
        break;
      case 'resource': {
        const resource = block.resource;
        parts.push(
          'text' in resource
            ? { type: 'resource', uri: resource.uri, text: resource.text, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}) }
            : { type: 'resource', uri: resource.uri, blob: resource.blob, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}) },
        );
        break;
      }
      case 'resource_link':
        parts.push({
          type: 'resource_link',
          uri: block.uri,
          name: block.name,
          ...(block.mimeType ? { mimeType: block.mimeType } : {}),
          ...(block.description ? { description: block.description } : {}),
        });
        break;
      default:
        // Audio and unknown content are not advertised; ignore rather than fail the turn.
        break;
    }
  }
  return parts;
}

/** ACP `mcpServers` of session/new → registry server configs (ids made unique and safe). */
export function fromAcpMcpServers(servers: readonly acp.McpServer[]): McpServerConfig[] {
  const used = new Set<string>();
  return servers.map((server) => {
    let id = server.name.replace(/[^A-Za-z0-9_.-]/g, '_') || 'server';
    for (let n = 2; used.has(id); n++) id = `${id}_${n}`;
    used.add(id);
    const base = { id, name: server.name, timeoutMs: 30_000, enabled: true, trustAnnotations: false, auth: { type: 'none' as const }, args: [], env: {}, headers: {} };
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      return {
        ...base,
        transport: server.type,
        url: server.url,
        headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
      };
    }
    const stdio = server as acp.McpServerStdio;
    return {
      ...base,
      transport: 'stdio' as const,
      command: stdio.command,
      args: stdio.args,
      env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])),
    };
  });
}
