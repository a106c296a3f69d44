import type { SearchHit } from '../retrieval/search-index.js';
import type { AnyTool } from '../contracts/tool.js';
import type { ServerState } from './load-server-catalog.js';
import type { McpDocumentPayload } from './mcp-catalog-documents.js';
import type { DiscoveryHit, LocalPrompt, LocalResource } from './mcp-registry-types.js';

/** What the registry holds in-process (not from a server), by name or URI. */
export interface LocalCatalog {
  tools: ReadonlyMap<string, AnyTool>;
  resources: ReadonlyMap<string, LocalResource>;
  prompts: ReadonlyMap<string, LocalPrompt>;
}

/**
 * A search hit → the live item it names (a tool, resource, template or prompt of one of the
 * scope's servers, or a local one); nothing when the item vanished since the last sync.
 */
export function resolveDiscoveryHit(hit: SearchHit, scoped: readonly ServerState[], locals: LocalCatalog): DiscoveryHit[] {
  const payload = hit.document.payload as McpDocumentPayload | undefined;
  if (!payload) return [];
  const state = scoped.find((candidate) => candidate.namespace === hit.document.namespace);
  const { score } = hit;
  const serverId = state?.config.id;
  switch (hit.document.kind) {
    case 'tool': {
      const tool = state ? state.tools.get(payload.ref) : locals.tools.get(payload.ref);
      return tool ? [{ kind: 'tool', score, serverId, tool }] : [];
    }
    case 'resource': {
      const resource = state ? state.resources.find((item) => item.uri === payload.ref) : locals.resources.get(payload.ref);
      return resource ? [{ kind: 'resource', score, serverId, resource }] : [];
    }
    case 'resource-template': {
      const template = state?.templates.find((item) => item.uriTemplate === payload.ref);
      return template ? [{ kind: 'resource-template', score, serverId, template }] : [];
    }
    case 'prompt': {
      const local = locals.prompts.get(payload.ref);
      const prompt = state ? state.prompts.get(payload.ref) : local && { ...local, mcpName: local.name };
      return prompt ? [{ kind: 'prompt', score, serverId, prompt }] : [];
    }
    default:
      return [];
  }
}
