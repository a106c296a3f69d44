import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';
import type { CreateMessageRequest, CreateMessageResult, CreateMessageResultWithTools } from '@modelcontextprotocol/server';
import { McpAdapterError } from './mcp-adapter-error.js';

/** `sampling/createMessage` params, and what a host answers. */
export type SamplingParams = CreateMessageRequest['params'];
export type SamplingResult = CreateMessageResult | CreateMessageResultWithTools;

/**
 * Sends one `sampling/createMessage` to the host. `undefined` when no host that
 * supports sampling is reachable from the calling turn (the model then fails clearly).
 */
export type Sampler = (params: SamplingParams, options: { signal?: AbortSignal }) => Promise<SamplingResult>;

export interface SamplingLanguageModelOptions {
  sample: Sampler;
  /** Tokens asked for when the caller sets no limit (sampling requires `maxTokens`). */
  defaultMaxTokens?: number;
  /** Whether the host accepts `tools` in sampling requests (capability `sampling.tools`). */
  supportsTools?: () => boolean;
}

type SamplingMessage = SamplingParams['messages'][number];
type SamplingBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: Array<{ type: 'text'; text: string }>; isError?: boolean };

/**
 * An AI SDK model whose calls go to the MCP host through sampling: a mounted agent
 * borrows its host's model. Sampling answers whole messages, so the stream is the
 * whole reply replayed as parts.
 */
export function createSamplingLanguageModel(options: SamplingLanguageModelOptions): LanguageModelV3 {
  const generate = async (call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    const warnings: SharedV3Warning[] = [];
    const { systemPrompt, messages } = toSamplingMessages(call.prompt);
    const tools = (call.tools ?? []).flatMap((tool) =>
      tool.type === 'function' ? [{ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> }] : [],
    );
    const withTools = tools.length > 0 && (options.supportsTools?.() ?? true);
    if (tools.length > 0 && !withTools) warnings.push({ type: 'other', message: 'the MCP host does not support tools in sampling; tools were left out' });
    const params = {
      messages,
      ...(systemPrompt ? { systemPrompt } : {}),
      maxTokens: call.maxOutputTokens ?? options.defaultMaxTokens ?? 4096,
      ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
      ...(call.stopSequences?.length ? { stopSequences: call.stopSequences } : {}),
      ...(withTools ? { tools, toolChoice: toToolChoice(call.toolChoice) } : {}),
    } as SamplingParams;
    let result: SamplingResult;
    try {
      result = await options.sample(params, { signal: call.abortSignal });
    } catch (error) {
      if (call.abortSignal?.aborted) throw error;
      throw new McpAdapterError('sampling_failed', `MCP sampling failed: ${(error as Error).message}`, { cause: error });
    }
    return {
      content: fromSamplingContent(result.content as SamplingBlock | SamplingBlock[]),
      finishReason: toFinishReason(result.stopReason),
      usage: emptyUsage(),
      warnings,
      response: { modelId: result.model },
    };
  };

  return {
    specificationVersion: 'v3',
    provider: 'mcp-sampling',
    modelId: 'host',
    supportedUrls: {},
    doGenerate: generate,
    async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
      const result = await generate(call);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: result.warnings }];
      result.content.forEach((part, index) => {
        if (part.type === 'text') {
          const id = `text-${index}`;
          parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: part.text }, { type: 'text-end', id });
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      });
      parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

/** AI SDK prompt → sampling messages. Tool results go back as `user` messages, as the spec has it. */
export function toSamplingMessages(prompt: LanguageModelV3Prompt): { systemPrompt?: string; messages: SamplingMessage[] } {
  const system: string[] = [];
  const messages: SamplingMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: SamplingBlock[]) => {
    if (blocks.length === 0) return;
    messages.push({ role, content: blocks.length === 1 ? blocks[0] : blocks } as SamplingMessage);
  };
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push(
          'user',
          message.content.flatMap((part): SamplingBlock[] => {
            if (part.type === 'text') return [{ type: 'text', text: part.text }];
            if (part.type === 'file' && part.mediaType.startsWith('image/') && typeof part.data === 'string') {
              return [{ type: 'image', data: part.data, mimeType: part.mediaType }];
            }
            return [];
          }),
        );
        break;
      case 'assistant':
        push(
          'assistant',
          message.content.flatMap((part): SamplingBlock[] => {
            if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
            if (part.type === 'tool-call') {
              const input = typeof part.input === 'string' ? safeParse(part.input) : part.input;
              return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: (input ?? {}) as Record<string, unknown> }];
            }
            return [];
          }),
        );
        break;
      case 'tool':
        push(
          'user',
          message.content.flatMap((part): SamplingBlock[] => {
            if (part.type !== 'tool-result') return [];
            const output = part.output;
            const text =
              output.type === 'text' || output.type === 'error-text'
                ? output.value
                : output.type === 'json' || output.type === 'error-json'
                  ? JSON.stringify(output.value)
                  : output.type === 'execution-denied'
                    ? `Execution denied${output.reason ? `: ${output.reason}` : ''}`
                    : JSON.stringify(output.value);
            const isError = output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
            return [{ type: 'tool_result', toolUseId: part.toolCallId, content: [{ type: 'text', text }], ...(isError ? { isError } : {}) }];
          }),
        );
        break;
    }
  }
  return { ...(system.length > 0 ? { systemPrompt: system.join('\n\n') } : {}), messages };
}

function fromSamplingContent(content: SamplingBlock | SamplingBlock[]): LanguageModelV3Content[] {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.flatMap((block): LanguageModelV3Content[] => {
    if (block.type === 'text') return [{ type: 'text', text: block.text }];
    if (block.type === 'tool_use') return [{ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: JSON.stringify(block.input ?? {}) }];
    return [];
  });
}

function toFinishReason(stopReason: string | undefined): LanguageModelV3FinishReason {
  switch (stopReason) {
    case 'toolUse':
      return { unified: 'tool-calls', raw: stopReason };
    case 'maxTokens':
      return { unified: 'length', raw: stopReason };
    case 'endTurn':
    case 'stopSequence':
    case undefined:
      return { unified: 'stop', raw: stopReason };
    default:
      return { unified: 'other', raw: stopReason };
  }
}

function toToolChoice(choice: LanguageModelV3CallOptions['toolChoice']): { mode: 'auto' | 'required' | 'none' } {
  if (choice?.type === 'required' || choice?.type === 'tool') return { mode: 'required' };
  if (choice?.type === 'none') return { mode: 'none' };
  return { mode: 'auto' };
}

// Sampling reports no token counts.
function emptyUsage(): LanguageModelV3Usage {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { input: text };
  }
}
