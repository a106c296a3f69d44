import * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';

const providerId = z.string({ error: 'providerId must be a string: the id of a provider from providers/list (e.g. "main")' });

const setProvider = z.object({
  providerId,
  apiType: z.string({ error: 'apiType must be a string: "anthropic" or "openai"' }),
  baseUrl: z
    .string({ error: 'baseUrl must be a string: the http(s) URL of the endpoint (e.g. "https://gateway.example.com/v1")' })
    .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), {
      error: 'baseUrl must be an http:// or https:// URL (e.g. "https://gateway.example.com/v1")',
    }),
  headers: z
    .record(z.string(), z.string(), { error: 'headers must be an object of header names to string values' })
    .optional()
    .transform((headers) => headers ?? {}),
});

/**
 * The params of the unstable v1 `providers/*` methods (`@agentclientprotocol/sdk/unstable`'s
 * `SetProviderRequest`, `DisableProviderRequest`), parsed here as `session/fork`'s are: the
 * stable entry has no parser for them. Bad params answer -32602 whose message names the field and
 * the fix; the data never echoes a header's value.
 */
export const setProviderRequest = parser(setProvider);
export const disableProviderRequest = parser(z.object({ providerId }));
export const listProvidersRequest = parser(z.object({}).nullish());

export type SetProviderParams = z.output<typeof setProvider>;

function parser<T extends z.ZodType>(schema: T): (params: unknown) => z.output<T> {
  return (params) => {
    const parsed = schema.safeParse(params);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    throw acp.RequestError.invalidParams({ code: 'invalid_provider_params', field }, issue.message);
  };
}
