import { AgentInterface, type AgentCard } from '@a2a-js/sdk';

/**
 * The card in the A2A 0.3 shape, served when a client asks without `A2A-Version` (or with
 * 0.3), as the SDK's own Express card router does: `url`/`preferredTransport`/`protocolVersion`
 * at the top, OpenAPI-style security schemes, and the 1.0 interfaces embedded so a newer client
 * reading this card still finds them. (The SDK's translator is internal to its Express router.)
 */
export function legacyAgentCard(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((intf) => intf.protocolVersion.startsWith('0.3'));
  const primary = legacy[0] ?? card.supportedInterfaces[0]!;
  const schemes = Object.entries(card.securitySchemes).flatMap(([name, scheme]) => {
    const http = scheme.scheme?.$case === 'httpAuthSecurityScheme' ? scheme.scheme.value : undefined;
    return http ? [[name, { type: 'http', scheme: http.scheme, ...(http.description ? { description: http.description } : {}) }] as const] : [];
  });
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    ...(legacy.length > 1 ? { additionalInterfaces: legacy.slice(1).map((intf) => ({ url: intf.url, transport: intf.protocolBinding })) } : {}),
    ...(card.provider ? { provider: card.provider } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: { streaming: card.capabilities?.streaming ?? false, pushNotifications: card.capabilities?.pushNotifications ?? false },
    ...(schemes.length > 0 ? { securitySchemes: Object.fromEntries(schemes), security: card.securityRequirements.map((requirement) => Object.fromEntries(Object.keys(requirement.schemes).map((name) => [name, []]))) } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
    })),
    supportedInterfaces: card.supportedInterfaces.map((intf) => AgentInterface.toJSON(intf)),
  };
}
