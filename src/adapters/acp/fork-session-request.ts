import { z } from 'zod';

const pair = z.object({ name: z.string(), value: z.string() });
const list = <T extends z.ZodType>(item: T) => z.array(item).nullish().transform((value) => value ?? []);
const mcpServer = z.union([
  z.object({ type: z.enum(['http', 'sse']), name: z.string(), url: z.string(), headers: list(pair) }),
  z.object({ name: z.string(), command: z.string(), args: list(z.string()), env: list(pair) }),
]);

/**
 * `session/fork` params (unstable ACP v1, `ForkSessionRequest` of `@agentclientprotocol/sdk/unstable`),
 * parsed like the SDK parses `session/new`'s: the stable entry point has no parser for the unstable
 * method, and loading the unstable entry for one method would load its whole schema. A zod error is
 * answered -32602 by the SDK.
 */
export const forkSessionRequest = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  additionalDirectories: list(z.string()),
  mcpServers: list(mcpServer),
});

