import { z } from 'zod';

/**
 * Longest id (task, context, message, page token) accepted from a peer. Ids are UUIDs in
 * practice; the bound keeps a hostile one out of the store, the session map and the logs.
 */
export const MAX_A2A_ID_CHARS = 1024;

const id = z.string().min(1).max(MAX_A2A_ID_CHARS);
/** Protocol 1.0 sends proto3 JSON: an unset id is `""` or absent. */
const optionalId = z.string().max(MAX_A2A_ID_CHARS).optional();
const metadata = z.record(z.string(), z.unknown()).optional();
const count = z.number().int().nonnegative().optional();
const object = z.record(z.string(), z.unknown()).optional();

const message03 = z.looseObject({
  messageId: id,
  contextId: optionalId,
  taskId: optionalId,
  role: z.enum(['user', 'agent']),
  parts: z.array(z.looseObject({})),
  referenceTaskIds: z.array(id).optional(),
  extensions: z.array(z.string().max(MAX_A2A_ID_CHARS)).optional(),
  metadata,
});

const message10 = z.looseObject({
  messageId: id,
  contextId: optionalId,
  taskId: optionalId,
  role: z.union([z.string().max(64), z.number().int()]),
  parts: z.array(z.looseObject({})),
  referenceTaskIds: z.array(id).optional(),
  extensions: z.array(z.string().max(MAX_A2A_ID_CHARS)).optional(),
  metadata,
});

const tenant = z.string().max(MAX_A2A_ID_CHARS).optional();
const send03 = z.looseObject({ message: message03, configuration: object, metadata });
const send10 = z.looseObject({ message: message10, configuration: object, metadata, tenant });
const taskQuery = z.looseObject({ id, historyLength: count, metadata, tenant });
const listTasks = z.looseObject({
  tenant,
  contextId: optionalId,
  status: z.union([z.string().max(64), z.number().int()]).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
  pageToken: optionalId,
  historyLength: count,
  statusTimestampAfter: z.string().max(64).optional(),
  includeArtifacts: z.boolean().optional(),
});

/**
 * The params of each A2A JSON-RPC method we serve, 0.3 and 1.0 names: the SDK types them but
 * checks almost nothing at run time (`tasks/get {"id": 1e400}` reached `id.trim()`), and its
 * 1.0 `fromJSON` coerces any value into a string. Unknown fields pass (a newer peer may add
 * some); unknown methods are left to the SDK, which answers -32601.
 */
export const A2A_RPC_PARAMS: Readonly<Record<string, z.ZodType>> = {
  'message/send': send03,
  'message/stream': send03,
  'tasks/get': taskQuery,
  'tasks/cancel': taskQuery,
  'tasks/resubscribe': taskQuery,
  SendMessage: send10,
  SendStreamingMessage: send10,
  GetTask: taskQuery,
  CancelTask: taskQuery,
  SubscribeToTask: taskQuery,
  ListTasks: listTasks,
};

/** The body of REST `POST /message:send` and `/message:stream` (a 1.0 SendMessageRequest). */
export const A2A_REST_SEND_BODY: z.ZodType = send10;
