import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/client';
import { flattenSchemaArgs } from '../retrieval/flatten-schema-args.js';
import type { IndexDocument } from '../retrieval/search-index.js';
import type { McpTool } from './create-mcp-tool.js';

/** Kinds of documents the registry writes to the index. */
export type McpDocumentKind = 'tool' | 'resource' | 'resource-template' | 'prompt';

/** What the registry keeps with each document, to map a hit back to the live item. */
export interface McpDocumentPayload {
  /** The registry's name for the item: normalized tool/prompt name, or the resource URI/template. */
  ref: string;
  /** The server's id; absent for items registered in-process. */
  serverId?: string;
}

export interface McpCatalog {
  namespace: string;
  serverId?: string;
  /** The server's description/instructions: shared context of all its items. */
  group?: string;
  tools: readonly McpTool[];
  resources: readonly Resource[];
  templates: readonly ResourceTemplateType[];
  prompts: readonly (Prompt & { ref: string })[];
}

/** Namespace of items registered in-process rather than served by an MCP server. */
export const LOCAL_NAMESPACE = 'local';

export function documentId(kind: McpDocumentKind, namespace: string, ref: string): string {
  return `${kind}:${namespace}:${ref}`;
}

/**
 * Index documents for one server's catalog: name, title, description, argument names and
 * descriptions, and the server's own description as the group field (so "open an issue" finds
 * the GitHub server's tools even when one of them is tersely described).
 */
export function mcpCatalogDocuments(catalog: McpCatalog): IndexDocument[] {
  const { namespace, serverId, group } = catalog;
  const make = (kind: McpDocumentKind, ref: string, fields: IndexDocument['fields']) => catalogDocument({ kind, namespace, ref, fields, group, serverId });
  return [
    ...catalog.tools.map((tool) =>
      make('tool', tool.name, {
        name: tool.mcpName,
        title: tool.mcpTitle,
        description: tool.description,
        args: flattenSchemaArgs(tool.inputSchema),
      }),
    ),
    ...catalog.resources.map((resource) =>
      make('resource', resource.uri, {
        name: resource.name,
        title: resource.title,
        description: [resource.description, resource.uri].filter(Boolean).join(' '),
        args: resource.mimeType,
      }),
    ),
    ...catalog.templates.map((template) =>
      make('resource-template', template.uriTemplate, {
        name: template.name,
        title: template.title,
        description: [template.description, template.uriTemplate].filter(Boolean).join(' '),
        args: templateVariables(template.uriTemplate).join(' '),
      }),
    ),
    ...catalog.prompts.map((prompt) =>
      make('prompt', prompt.ref, {
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        args: (prompt.arguments ?? []).map((arg) => (arg.description ? `${arg.name}: ${arg.description}` : `${arg.name}.`)).join(' '),
      }),
    ),
  ];
}

function templateVariables(template: string): string[] {
  return [...template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((match) => match[1].split(',').map((name) => name.replace(/\*$/, '')));
}

/** A document for an item registered in-process (tool, resource or prompt). */
export function localDocument(kind: McpDocumentKind, ref: string, fields: IndexDocument['fields'], group?: string): IndexDocument {
  return catalogDocument({ kind, namespace: LOCAL_NAMESPACE, ref, fields, group });
}

function catalogDocument(options: {
  kind: McpDocumentKind;
  namespace: string;
  ref: string;
  fields: IndexDocument['fields'];
  group?: string;
  serverId?: string;
}): IndexDocument {
  const { kind, namespace, ref, group, serverId } = options;
  return {
    id: documentId(kind, namespace, ref),
    kind,
    namespace,
    fields: { ...options.fields, ...(group ? { group } : {}) },
    payload: { ref, ...(serverId ? { serverId } : {}) } satisfies McpDocumentPayload,
  };
}
