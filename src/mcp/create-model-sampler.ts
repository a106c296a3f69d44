import type { LanguageModel, ModelMessage } from 'ai';
import type { CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/client';
import type { McpSampler, McpSessionCallContext } from './mcp-registry-types.js';

export interface ModelSamplerOptions {
  /** The model that answers (the session's model); a function is resolved per request. */
  model: LanguageModel | ((context: McpSessionCallContext) => LanguageModel | Promise<LanguageModel>);
  /** Upper bound on what a server may ask for, whatever its `maxTokens` (default 4,096). */
  maxTokensCap?: number;
}

type SamplingBlock = { type: string; text?: string; data?: string; mimeType?: string };

/**
 * Answers MCP `sampling/createMessage` with the agent's own model (AI SDK `generateText`):
 * the server's system prompt and messages go in as they are (text and images), its token limit
 * is honoured up to a cap, and the finish reason maps onto MCP's stop reasons. Pass the result as
 * `onSampling` to the registry; the host decides whether to ask the user first.
 */
export function createModelSampler(options: ModelSamplerOptions): McpSampler {
  const cap = options.maxTokensCap ?? 4_096;
  const sample = async (request: CreateMessageRequestParams, context: McpSessionCallContext): Promise<CreateMessageResult> => {
    const model = typeof options.model === 'function' ? await options.model(context) : options.model;
    const messages: ModelMessage[] = request.messages.map((message) => {
      const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as SamplingBlock[];
      if (message.role === 'assistant') return { role: 'assistant', content: blocks.map(blockText).join('\n') };
      return {
        role: 'user',
        content: blocks.map((block) =>
          block.type === 'image' && block.data
            ? { type: 'image' as const, image: block.data, mediaType: block.mimeType }
            : { type: 'text' as const, text: blockText(block) },
        ),
      };
    });
    // Loaded with the first request: the AI SDK stays out of a session's start.
    const { generateText } = await import('ai');
    const result = await generateText({
      model,
      system: request.systemPrompt,
      messages,
      maxOutputTokens: Math.min(request.maxTokens, cap),
      temperature: request.temperature,
      stopSequences: request.stopSequences,
      abortSignal: context.signal,
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: result.text },
      model: typeof model === 'string' ? model : model.modelId,
      stopReason: result.finishReason === 'length' ? 'maxTokens' : result.finishReason === 'stop' ? 'endTurn' : result.finishReason,
    };
  };
  // The permission question names what the answer may spend: the cap, when it is below the ask.
  return Object.assign(sample, { maxTokensCap: cap });
}

function blockText(block: SamplingBlock): string {
  if (block.type === 'text') return block.text ?? '';
  return `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ''}]`;
}
