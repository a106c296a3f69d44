import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createSamplingLanguageModel, toSamplingMessages, type SamplingParams, type SamplingResult } from '../../../src/adapters/mcp-server/sampling-language-model.js';

const prompt: LanguageModelV3Prompt = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'glob', input: { pattern: '*' } }] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'glob', output: { type: 'json', value: ['a.ts', 'b.ts'] } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: { type: 'execution-denied', reason: 'rejected by the user' } },
    ],
  },
];

async function drain(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

describe('the MCP sampling language model', () => {
  it('turns an AI SDK prompt into sampling messages: system prompt apart, tool results as user turns', () => {
    const { systemPrompt, messages } = toSamplingMessages(prompt);
    expect(systemPrompt).toBe('You are terse.');
    expect(messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'list the files' } },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'glob', input: { pattern: '*' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: '["a.ts","b.ts"]' }] },
          { type: 'tool_result', toolUseId: 'c2', content: [{ type: 'text', text: 'Execution denied: rejected by the user' }], isError: true },
        ],
      },
    ]);
  });

  it('streams the host reply: text, tool calls with JSON input, and the mapped finish reason', async () => {
    const seen: SamplingParams[] = [];
    const model = createSamplingLanguageModel({
      sample: async (params) => {
        seen.push(params);
        return {
          role: 'assistant',
          model: 'host',
          stopReason: 'toolUse',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'u1', name: 'read_file', input: { path: 'a.ts' } },
          ],
        } as SamplingResult;
      },
      supportsTools: () => true,
    });
    const { stream } = await model.doStream({
      prompt,
      maxOutputTokens: 256,
      tools: [{ type: 'function', name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    const parts = await drain(stream);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => (part as { delta: string }).delta)).toEqual(['Reading.']);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({ toolCallId: 'u1', toolName: 'read_file', input: '{"path":"a.ts"}' });
    expect(parts[parts.length - 1]).toMatchObject({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'toolUse' } });
    expect(seen[0]).toMatchObject({ maxTokens: 256, systemPrompt: 'You are terse.', toolChoice: { mode: 'auto' } });
    expect((seen[0] as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['read_file']);
  });

  it('leaves tools out, with a warning, when the host cannot take them', async () => {
    const seen: SamplingParams[] = [];
    const model = createSamplingLanguageModel({
      sample: async (params) => {
        seen.push(params);
        return { role: 'assistant', model: 'host', stopReason: 'maxTokens', content: { type: 'text', text: 'cut' } } as SamplingResult;
      },
      supportsTools: () => false,
      defaultMaxTokens: 99,
    });
    const result = await model.doGenerate({ prompt, tools: [{ type: 'function', name: 'glob', inputSchema: { type: 'object' } }] });
    expect((seen[0] as { tools?: unknown }).tools).toBeUndefined();
    expect(seen[0]!.maxTokens).toBe(99);
    expect(result.warnings).toEqual([expect.objectContaining({ type: 'other' })]);
    expect(result.finishReason).toEqual({ unified: 'length', raw: 'maxTokens' });
  });
});
