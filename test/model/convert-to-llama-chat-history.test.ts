import { describe, it, expect } from 'vitest';
import { convertToLlamaChatHistory } from '../../src/model/convert-to-llama-chat-history.js';
import { convertToFunctionGemmaMessages } from '../../src/model/convert-to-functiongemma-messages.js';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';

const prompt: LanguageModelV3Prompt = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'a', toolName: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'get_weather', input: { city: 'Tokyo' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'b', toolName: 'get_weather', output: { type: 'json', value: { t: 9 } } },
      { type: 'tool-result', toolCallId: 'a', toolName: 'get_weather', output: { type: 'error-text', value: 'timeout' } },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Tokyo is 9.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Thanks' }, { type: 'file', data: 'AAAA', mediaType: 'image/png' }] },
];

describe('convertToLlamaChatHistory', () => {
  it('folds calls, their results (by id) and the follow-up text into one model response, and ends with an open model item', () => {
    const { history, droppedFiles } = convertToLlamaChatHistory(prompt);
    expect(droppedFiles).toBe(1);
    expect(history).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'Weather in Paris and Tokyo?' },
      {
        type: 'model',
        response: [
          'Checking.',
          { type: 'functionCall', name: 'get_weather', params: { city: 'Paris' }, result: { error: 'timeout' } },
          { type: 'functionCall', name: 'get_weather', params: { city: 'Tokyo' }, result: { t: 9 } },
          'Tokyo is 9.',
        ],
      },
      { type: 'user', text: 'Thanks' },
      { type: 'model', response: [] },
    ]);
  });

  it('continues an open model response when the prompt ends with tool results', () => {
    const { history } = convertToLlamaChatHistory(prompt.slice(0, 4));
    expect(history[history.length - 1]).toMatchObject({ type: 'model', response: ['Checking.', { result: { error: 'timeout' } }, { result: { t: 9 } }] });
  });
});

describe('convertToFunctionGemmaMessages', () => {
  it('puts calls, responses and the answer in one model turn', () => {
    expect(convertToFunctionGemmaMessages(prompt)).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Weather in Paris and Tokyo?' },
      {
        role: 'model',
        parts: [
          { type: 'text', text: 'Checking.' },
          { type: 'call', name: 'get_weather', arguments: { city: 'Paris' } },
          { type: 'call', name: 'get_weather', arguments: { city: 'Tokyo' } },
          { type: 'response', name: 'get_weather', response: { t: 9 } },
          { type: 'response', name: 'get_weather', response: { error: 'timeout' } },
          { type: 'text', text: 'Tokyo is 9.' },
        ],
      },
      { role: 'user', text: 'Thanks' },
    ]);
  });
});
