import { z } from 'zod';

/**
 * One entry of `agent.models`: a model a client may pick per session (the ACP model picker).
 * Provider settings not given here come from `agent` (base URL, key, headers).
 */
export const namedModelSchema = z.strictObject({
  /** What the picker shows and what is stored with the session. */
  name: z.string().min(1).refine((name) => name !== 'default', 'the name "default" stands for agent.model'),
  /** `PROVIDER:MODEL` as `agent.model` (`anthropic:…`, `openai-compatible:…`, `llama-cpp:PATH_OR_URI` …). */
  model: z.string().min(1),
  description: z.string().optional(),
  baseURL: z.string().url().optional(),
  apiKey: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Reasoning efforts the model accepts (sent as `reasoning_effort`; a native provider's thinking at that level); none means the option is not offered. */
  reasoningEfforts: z.array(z.enum(['minimal', 'low', 'medium', 'high'])).optional(),
});

export type NamedModel = z.infer<typeof namedModelSchema>;
