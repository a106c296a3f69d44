import type { LanguageModelV3FinishReason } from '@ai-sdk/provider';
import type { ChatModelFunctions, GbnfJsonSchema, LlamaGrammar, LlamaJsonSchemaGrammar } from 'node-llama-cpp';
import { convertToLlamaChatHistory } from './convert-to-llama-chat-history.js';
import { jsonSchemaToGbnf } from './json-schema-to-gbnf.js';
import {
  finishReasonOf,
  offeredTools,
  samplingOptions,
  throwIfAborted,
  type LocalGenerationRequest,
  type PreparedGeneration,
} from './local-generation-request.js';
import { loadNodeLlamaCpp } from './shared-llama.js';
import { tokenizeCached } from './token-cache.js';

/**
 * The generic path: node-llama-cpp's chat wrapper for the model's template and its
 * grammar-constrained function calling, so even a weak model emits well-formed calls. When a call
 * is required (`toolChoice` required or a named tool) the whole reply is generated under a JSON
 * grammar of `{name, arguments}` for the allowed tools. A JSON response format is generated under
 * a grammar of its schema. The prompt's tokens are rendered with the same chat wrapper, history
 * and functions the generation uses, so a prefilled sequence matches what LlamaChat evaluates.
 */
export async function prepareLlamaChat(request: LocalGenerationRequest): Promise<PreparedGeneration> {
  const { LlamaChat } = await loadNodeLlamaCpp();
  const { chatWrapper, toolChoice, signal } = request;
  if (!chatWrapper) throw new Error('the generic format needs a chat wrapper');
  const { history } = convertToLlamaChatHistory(request.prompt);
  const offered = offeredTools(request);
  const required = offered.length > 0 && (toolChoice?.type === 'required' || toolChoice?.type === 'tool');
  const json = !required && request.responseFormat?.type === 'json' && offered.length === 0;
  const functions: ChatModelFunctions | undefined =
    !required && offered.length > 0
      ? Object.fromEntries(offered.map((tool) => [tool.name, { description: tool.description, params: jsonSchemaToGbnf(tool.inputSchema) }]))
      : undefined;

  let grammar: LlamaGrammar | undefined;
  let callGrammar: LlamaJsonSchemaGrammar<GbnfJsonSchema> | undefined;
  if (required) {
    const schema = {
      oneOf: offered.map((tool) => ({
        type: 'object',
        properties: { name: { const: tool.name }, arguments: jsonSchemaToGbnf(tool.inputSchema) },
        required: ['name', 'arguments'],
        additionalProperties: false,
      })),
    } as GbnfJsonSchema;
    callGrammar = await request.llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema);
  } else if (json && request.responseFormat?.type === 'json') {
    grammar = request.responseFormat.schema
      ? await request.llama.createGrammarForJsonSchema<GbnfJsonSchema>(jsonSchemaToGbnf(request.responseFormat.schema))
      : await request.llama.getGrammarFor('json');
  }

  const { contextText } = chatWrapper.generateContextState({
    chatHistory: history,
    availableFunctions: functions,
    documentFunctionParams: functions ? true : undefined,
  });
  const tokens = tokenizeCached(request.model, contextText);

  const generate: PreparedGeneration['generate'] = async ({ sequence, maxTokens, writer }): Promise<LanguageModelV3FinishReason> => {
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
    try {
      const common = {
        ...samplingOptions(request, maxTokens),
        customStopTriggers: request.stopSequences?.length ? request.stopSequences : undefined,
      };
      if (callGrammar) {
        const grammar = callGrammar;
        const result = await chat.generateResponse(history, { ...common, grammar });
        throwIfAborted(result.metadata.stopReason, signal);
        let call: { name: string; arguments: unknown } | undefined;
        try {
          call = grammar.parse(result.response) as unknown as { name: string; arguments: unknown };
        } catch {
          call = undefined;
        }
        if (!call) {
          // Cut off before the JSON closed (max tokens): report what was generated as text.
          writer.text(result.response);
          return { unified: 'length', raw: result.metadata.stopReason };
        }
        writer.toolCall(0, call.name, JSON.stringify(call.arguments ?? {}));
        return { unified: 'tool-calls', raw: 'functionCalls' };
      }
      if (json && grammar) {
        const result = await chat.generateResponse(history, { ...common, grammar, onTextChunk: (text) => writer.text(text) });
        throwIfAborted(result.metadata.stopReason, signal);
        return finishReasonOf(result.metadata.stopReason, 0);
      }
      const result = await chat.generateResponse(history, {
        ...common,
        onTextChunk: (text) => writer.text(text),
        ...(functions
          ? {
              functions,
              documentFunctionParams: true,
              onFunctionCallParamsChunk: (chunk) => writer.toolInputDelta(chunk.callIndex, chunk.functionName, chunk.paramsChunk),
            }
          : {}),
      });
      throwIfAborted(result.metadata.stopReason, signal);
      const calls = result.functionCalls ?? [];
      calls.forEach((call, index) => writer.toolCall(index, call.functionName, JSON.stringify(call.params ?? {})));
      return finishReasonOf(result.metadata.stopReason, calls.length);
    } finally {
      chat.dispose({ disposeSequence: false });
    }
  };
  return { tokens, generate };
}
