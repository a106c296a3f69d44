import type { CreateMessageRequestParams } from '@modelcontextprotocol/client';
import type { McpSampler, McpSessionCallContext } from './mcp-registry-types.js';
import { perMinuteLimit } from './per-minute-limit.js';

/** MCP's code for a sampling request the user (or a rule standing in for the user) refused. */
export const SAMPLING_REFUSED = -1;
/** How many sampling requests a server may make per minute when its config names no number. */
export const DEFAULT_SAMPLING_PER_MINUTE = 5;

export interface GuardSamplingOptions {
  /** The clock (tests of the window use their own). */
  now?: () => number;
}

/**
 * A server's `sampling/createMessage` spends the user's model and money, so it is not free
 * (the MCP spec asks for a human in the loop). Per server: its config rule
 * (`mcp.servers[].sampling`: `ask`, the default, `allow` or `deny`), then a rate limit
 * (`samplingPerMinute`, default 5, counted over the last minute), then, for `ask`, a
 * permission question through the session whose tool call is in flight on that server
 * ("Allow always" holds for that server in that session). With no session to ask
 * through, the request is refused. Every refusal is an MCP error that names its cause and the fix.
 */
export function guardSampling(sample: McpSampler, options: GuardSamplingOptions = {}): McpSampler {
  const take = perMinuteLimit(options.now);
  const allowedAlways = new Set<string>();
  let sequence = 0;
  return async (request, context) => {
    const server = context.server;
    const name = context.serverId;
    const rule = server?.sampling ?? 'ask';
    if (rule === 'deny') {
      throw await refusal(`Sampling refused: the config of MCP server "${name}" says sampling: 'deny' (set it to 'ask' or 'allow' to let it use the model)`);
    }
    const key = `${context.sessionId ?? ''}\u0000${name}`;
    const limit = server?.samplingPerMinute ?? DEFAULT_SAMPLING_PER_MINUTE;
    const over = take(key, limit);
    if (over) {
      throw await refusal(
        `Sampling rate limit: MCP server "${name}" may ask for ${limit} completions per minute and has used them (raise samplingPerMinute in its config, or try again in a minute)`,
        over,
      );
    }
    if (rule === 'allow' || allowedAlways.has(key)) return sample(request, context);
    const answer = await ask(request, context, `sampling-${name}-${++sequence}`, sample.maxTokensCap);
    if (answer === 'always') allowedAlways.add(key);
    if (answer === 'reject') throw await refusal(`Sampling refused: the user declined MCP server "${name}"'s request to use the model`);
    return sample(request, context);
  };
}

type Answer = 'once' | 'always' | 'reject';

/** The permission question, through the tool call in flight on the server. */
async function ask(request: CreateMessageRequestParams, context: McpSessionCallContext, toolCallId: string, cap = Infinity): Promise<Answer> {
  const { emit, sessionId, serverId } = context;
  if (!emit || sessionId === undefined) {
    throw await refusal(
      `Sampling refused: MCP server "${serverId}" asked outside any tool call, so there is no user to ask (set sampling: 'allow' in its config to let it use the model unasked)`,
    );
  }
  if (context.signal?.aborted) return 'reject';
  const preview = request.messages
    .map((message) => (Array.isArray(message.content) ? message.content : [message.content]))
    .flat()
    .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : `[${block.type}]`))
    .join(' ')
    .slice(0, 200);
  return new Promise<Answer>((resolve) => {
    const onAbort = () => resolve('reject');
    context.signal?.addEventListener('abort', onAbort, { once: true });
    emit({
      type: 'permission-request',
      sessionId,
      toolCallId,
      title: `${serverId} wants to use the model (up to ${Math.min(request.maxTokens, cap)} tokens): ${preview}`,
      kind: 'other',
      input: { systemPrompt: request.systemPrompt, messages: request.messages, maxTokens: request.maxTokens },
      options: [
        { optionId: 'sampling-once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'sampling-always', name: `Always allow ${serverId} to sample in this session`, kind: 'allow_always' },
        { optionId: 'sampling-reject', name: 'Reject', kind: 'reject_once' },
      ],
      respond(decision) {
        context.signal?.removeEventListener('abort', onAbort);
        if (decision.outcome === 'cancelled') return resolve('reject');
        resolve(decision.optionId === 'sampling-once' ? 'once' : decision.optionId === 'sampling-always' ? 'always' : 'reject');
      },
    });
  });
}

/**
 * The MCP error a refused sampling request answers with. The SDK is loaded here, not with the
 * registry: only a connected server (the SDK already loaded) can ask for sampling.
 */
async function refusal(message: string, data?: unknown): Promise<Error> {
  const { ProtocolError } = await import('@modelcontextprotocol/client');
  return new ProtocolError(SAMPLING_REFUSED, message, data);
}
