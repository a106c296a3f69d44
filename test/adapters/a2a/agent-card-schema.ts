/**
 * The A2A 1.0 agent card's required shape (the fields the specification marks REQUIRED,
 * in their proto-JSON names), for checking what the server serves.
 */
const stringList = { type: 'array', items: { type: 'string' } } as const;

export const AGENT_CARD_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
  properties: {
    name: { type: 'string', minLength: 1 },
    description: { type: 'string', minLength: 1 },
    version: { type: 'string', minLength: 1 },
    supportedInterfaces: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['url', 'protocolBinding', 'protocolVersion'],
        properties: {
          url: { type: 'string', pattern: '^https?://' },
          protocolBinding: { enum: ['JSONRPC', 'GRPC', 'HTTP+JSON'] },
          protocolVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
          tenant: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    provider: { type: 'object', required: ['url', 'organization'] },
    documentationUrl: { type: 'string' },
    iconUrl: { type: 'string' },
    capabilities: {
      type: 'object',
      properties: {
        streaming: { type: 'boolean' },
        pushNotifications: { type: 'boolean' },
        extendedAgentCard: { type: 'boolean' },
        extensions: { type: 'array' },
      },
      additionalProperties: false,
    },
    securitySchemes: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        minProperties: 1,
        maxProperties: 1,
        properties: {
          httpAuthSecurityScheme: { type: 'object', required: ['scheme'], properties: { scheme: { type: 'string' }, description: { type: 'string' }, bearerFormat: { type: 'string' } } },
        },
      },
    },
    securityRequirements: { type: 'array', items: { type: 'object', required: ['schemes'] } },
    defaultInputModes: { ...stringList, minItems: 1 },
    defaultOutputModes: { ...stringList, minItems: 1 },
    skills: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'description', 'tags'],
        properties: { id: { type: 'string', minLength: 1 }, name: { type: 'string' }, description: { type: 'string' }, tags: stringList, examples: stringList, inputModes: stringList, outputModes: stringList },
        additionalProperties: false,
      },
    },
    signatures: { type: 'array' },
  },
  additionalProperties: false,
} as const;
