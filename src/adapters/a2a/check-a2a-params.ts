import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { z } from 'zod';
import { clipForLog } from './clip-for-log.js';

/**
 * Checks `value` against `schema`, or throws the SDK's `RequestMalformedError` (JSON-RPC
 * -32602, REST 400 INVALID_ARGUMENT) naming the first wrong field and what it should be,
 * e.g. `Invalid params for tasks/get: params.id: expected string, received number`.
 */
export function checkA2aParams(schema: z.ZodType, value: unknown, what: string, root = 'params'): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const issue = result.error.issues[0]!;
  const path = [root, ...issue.path.map(String)].join('.');
  const reason = issue.code === 'invalid_type' && /received undefined$/.test(issue.message) ? `${path} is required` : `${path}: ${issue.message}`;
  throw new RequestMalformedError(`Invalid params for ${clipForLog(what, 64)}: ${reason}`);
}
