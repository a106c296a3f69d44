import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';

export interface AgentCardInput {
  /** The JSON-RPC endpoint. */
  url: string;
  /** The base URL of the HTTP+JSON (REST) binding, protocol 1.0 only. */
  restUrl?: string;
  version: string;
  name?: string;
  description?: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  /** The project's SKILL.md skills. */
  skills: ReadonlyArray<{ name: string; description: string }>;
  /** Bearer auth in force: the card says so, so a client knows to send the token. */
  bearerAuth: boolean;
}

/** Where the token comes from, for the peer's operator (not `--auth-token`: a token on the command line is readable in `ps`). */
const BEARER_DESCRIPTION = "The agent's token: its --auth-token-file, PLAITED_AUTH_TOKEN or server.auth.token (without one, the token printed to its stderr at start)";

/** Media types a peer may send (images go to the model as images, other files as resources). */
export const INPUT_MODES = ['text/plain', 'application/json', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/octet-stream'];
/** Text answers, tool steps as JSON data, written files as unified diffs. */
export const OUTPUT_MODES = ['text/plain', 'application/json', 'text/x-diff'];

const CODING_SKILL: AgentSkill = {
  id: 'coding',
  name: 'Coding',
  description:
    'A coding agent working in its project: reads, searches, edits and writes files, runs commands, fetches web pages, and uses its MCP tools. Edits and commands may ask for permission (the task turns input-required).',
  tags: ['coding', 'files', 'shell', 'search'],
  examples: ['Find where the config is loaded and explain it', 'Add a test for the parser and run it'],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
};

/**
 * The agent card served at `/.well-known/agent-card.json`: who the agent is, what it can do
 * (a general coding skill plus one skill per SKILL.md), where and how to reach it.
 * The JSON-RPC interface is declared for protocol 1.0 and for 0.3 clients (the SDK's compat layer);
 * HTTP+JSON for 1.0 only (the 0.3 REST routes are not served).
 */
export function buildAgentCard(input: AgentCardInput): AgentCard {
  const skills: AgentSkill[] = [
    CODING_SKILL,
    ...input.skills.map((skill) => ({
      id: `skill:${skill.name}`,
      name: skill.name,
      description: skill.description,
      tags: ['skill'],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
  ];
  return {
    name: input.name ?? 'plaited-agent',
    description:
      input.description ??
      'A protocol-agnostic coding agent (also reachable over ACP and MCP). Send a message to run a turn in its project; a contextId is a conversation that survives restarts.',
    version: input.version,
    supportedInterfaces: [
      { url: input.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: input.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
      ...(input.restUrl ? [{ url: input.restUrl, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }] : []),
    ],
    provider: input.provider,
    documentationUrl: input.documentationUrl,
    iconUrl: input.iconUrl,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: input.bearerAuth
      ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: BEARER_DESCRIPTION, scheme: 'bearer', bearerFormat: '' } } } }
      : {},
    securityRequirements: input.bearerAuth ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
    signatures: [],
  };
}
