import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { mockStepStream, type MockStep } from '../helpers/scripted-mock-model.js';

/** Everything a route can look at: the system prompt and the whole prompt as text. */
export interface RouteInput {
  system: string;
  text: string;
  options: LanguageModelV3CallOptions;
}

/**
 * A mock model whose reply is chosen from the request, not by arrival order: parallel
 * sub-agents and background summaries ask in an order a script cannot know.
 */
export function routedModel(route: (input: RouteInput) => MockStep): MockLanguageModelV3 & { calls: RouteInput[] } {
  const calls: RouteInput[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      const system = options.prompt
        .filter((message) => message.role === 'system')
        .map((message) => message.content as string)
        .join('\n');
      const input = { system, text: JSON.stringify(options.prompt), options };
      calls.push(input);
      return { stream: mockStepStream(route(input), calls.length) };
    },
  });
  return Object.assign(model, { calls });
}
