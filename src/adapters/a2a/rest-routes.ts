import { AgentCard, ListTasksResponse, SendMessageRequest, SendMessageResponse, Task, taskStateFromJSON, type ListTasksRequest, type Message } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { A2A_REST_SEND_BODY, MAX_A2A_ID_CHARS } from './a2a-request-schemas.js';
import { checkA2aParams } from './check-a2a-params.js';
import { clipForLog } from './clip-for-log.js';
import { RestHttpError, type RestReply } from './rest-result-response.js';

/** Base URL of the HTTP+JSON binding (protocol 1.0); the routes below are relative to it. */
export const A2A_REST_PATH = '/a2a/rest';

export interface RestRequest {
  method: string;
  /** The path below {@link A2A_REST_PATH}, still percent-encoded, e.g. `/tasks/abc:cancel`. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body (POST only; an empty body is `{}`). */
  body: Record<string, unknown>;
}

const TASK_ROUTE = /^\/tasks\/([^/]+?)(?::(cancel|subscribe))?$/;
const PUSH_ROUTE = /^\/tasks\/[^/]+\/pushNotificationConfigs(?:\/[^/]+)?$/;

/**
 * The A2A 1.0 HTTP+JSON routes, as the SDK's REST client calls them and its Express
 * `restHandler` serves them, mapped onto the same request handler the JSON-RPC endpoint uses
 * (so auth, principals, permissions, cancel and persistence are one code path):
 * `POST /message:send`, `POST /message:stream` (SSE), `GET /tasks/{id}`, `GET /tasks`,
 * `POST /tasks/{id}:cancel`, `GET|POST /tasks/{id}:subscribe` (SSE), `GET /extendedAgentCard`.
 * Push notifications are not offered (the card says so), so their routes answer that.
 */
export async function runRestRoute(handler: A2ARequestHandler, request: RestRequest, context: ServerCallContext): Promise<RestReply> {
  const { method, path, query } = request;
  if (path === '/message:send' || path === '/message:stream') {
    allow(method, ['POST']);
    const params = sendMessageRequest(request.body);
    if (path === '/message:stream') return { kind: 'stream', events: handler.sendMessageStream(params, context) };
    const result = await handler.sendMessage(params, context);
    return { kind: 'json', status: 200, body: SendMessageResponse.toJSON({ payload: isMessage(result) ? { $case: 'message', value: result } : { $case: 'task', value: result } }) };
  }
  if (path === '/tasks') {
    allow(method, ['GET']);
    const result = await handler.listTasks(listTasksRequest(query), context);
    const json = ListTasksResponse.toJSON(result) as Record<string, unknown>;
    return { kind: 'json', status: 200, body: { ...json, tasks: json.tasks ?? [], nextPageToken: json.nextPageToken ?? '', pageSize: json.pageSize ?? 0, totalSize: json.totalSize ?? 0 } };
  }
  if (path === '/extendedAgentCard') {
    allow(method, ['GET']);
    return { kind: 'json', status: 200, body: AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)) };
  }
  if (PUSH_ROUTE.test(path)) throw new PushNotificationNotSupportedError();
  const task = TASK_ROUTE.exec(path);
  if (task) {
    const id = decodeSegment(task[1]!);
    const action = task[2];
    if (action === 'cancel') {
      allow(method, ['POST']);
      return { kind: 'json', status: 200, body: Task.toJSON(await handler.cancelTask({ id, tenant: '', metadata: {} }, context)) };
    }
    if (action === 'subscribe') {
      allow(method, ['GET', 'POST']);
      return { kind: 'stream', events: handler.resubscribe({ id, tenant: '' }, context) };
    }
    allow(method, ['GET']);
    const historyLength = query.get('historyLength');
    const params = { id, tenant: '', ...(historyLength !== null && historyLength !== '' ? { historyLength: nonNegative('historyLength', historyLength) } : {}) };
    return { kind: 'json', status: 200, body: Task.toJSON(await handler.getTask(params, context)) };
  }
  throw new RestHttpError(404, 'NOT_FOUND', `Not found: ${path}. The A2A REST routes under ${A2A_REST_PATH} are /message:send, /message:stream, /tasks, /tasks/{id}, /tasks/{id}:cancel and /tasks/{id}:subscribe`);
}

function allow(method: string, methods: string[]): void {
  if (!methods.includes(method)) throw new RestHttpError(405, 'UNIMPLEMENTED', `${method} is not allowed here; use ${methods.join(' or ')}`, { allow: methods.join(', ') });
}

function sendMessageRequest(body: Record<string, unknown>): SendMessageRequest {
  checkA2aParams(A2A_REST_SEND_BODY, body, 'POST /message:send', 'body');
  let params: SendMessageRequest;
  try {
    params = SendMessageRequest.fromJSON(body);
  } catch (error) {
    throw new RequestMalformedError(`Invalid SendMessageRequest: ${(error as Error).message}`);
  }
  // The SDK's REST transport checks the same two things before the handler sees the message.
  if (!params.message) throw new RequestMalformedError('message is required');
  if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return params;
}

function listTasksRequest(query: URLSearchParams): ListTasksRequest {
  const status = query.get('status');
  const pageSize = query.get('pageSize');
  const historyLength = query.get('historyLength');
  let state: ListTasksRequest['status'] = 0;
  if (status) {
    try {
      state = taskStateFromJSON(Number.isNaN(Number(status)) ? status : Number(status));
    } catch {
      throw new RequestMalformedError(`Unknown task state ${status}`);
    }
  }
  let size: number | undefined;
  if (pageSize !== null && pageSize !== '') {
    size = Number.parseInt(pageSize, 10);
    if (String(size) !== pageSize.trim() || size < 1 || size > 100) throw new RequestMalformedError('pageSize must be an integer between 1 and 100');
  }
  return {
    tenant: '',
    contextId: boundedId('contextId', query.get('contextId') ?? ''),
    status: state,
    pageSize: size,
    pageToken: boundedId('pageToken', query.get('pageToken') ?? ''),
    historyLength: historyLength !== null && historyLength !== '' ? nonNegative('historyLength', historyLength) : undefined,
    statusTimestampAfter: query.get('statusTimestampAfter') || undefined,
    includeArtifacts: query.get('includeArtifacts') === 'true',
  };
}

function nonNegative(name: string, value: string): number {
  const parsed = Number.parseInt(value, 10);
  if (Number.isNaN(parsed) || parsed < 0) throw new RequestMalformedError(`${name} must be a non-negative integer`);
  return parsed;
}

function decodeSegment(segment: string): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw new RequestMalformedError(`Malformed task id in the path: ${clipForLog(segment)}`);
  }
  return boundedId('the task id in the path', id);
}

function boundedId(name: string, value: string): string {
  if (value.length > MAX_A2A_ID_CHARS) throw new RequestMalformedError(`${name} is ${value.length} characters long; ids are at most ${MAX_A2A_ID_CHARS}`);
  return value;
}

function isMessage(result: Message | Task): result is Message {
  return 'messageId' in result;
}
