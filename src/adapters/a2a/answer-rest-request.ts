import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { A2AError, ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { headerRecord } from './header-record.js';
import { A2aPrincipal } from './a2a-principal.js';
import { clipForLog } from './clip-for-log.js';
import { readJsonBody } from './read-json-body.js';
import { RestHttpError, restErrorResponse, restResultResponse } from './rest-result-response.js';
import { runRestRoute } from './rest-routes.js';

export interface RestRequestOptions {
  handler: A2ARequestHandler;
  /** The caller the network auth recognised. */
  principal: string;
  /** The path below the REST base. */
  path: string;
  /** Size and depth bounds of a body. */
  limits: JsonRpcLimits;
  log?: (message: string) => void;
}

/**
 * One authenticated HTTP+JSON request: checks the media type and the `A2A-Version` (as the
 * SDK's Express REST router does), reads the JSON body of a POST, runs the route and answers.
 * Every failure is answered in the REST error shape; none ends the process.
 */
export async function answerRestRequest(request: Request, options: RestRequestOptions): Promise<Response> {
  try {
    const method = request.method;
    const contentType = request.headers.get('content-type') ?? undefined;
    const mediaType = contentType?.split(';', 1)[0]!.trim().toLowerCase();
    if (mediaType && mediaType !== 'application/json' && mediaType !== 'application/a2a+json') {
      throw new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`);
    }
    let body: Record<string, unknown> = {};
    if (method === 'POST') {
      const read = await readJsonBody(request, options.limits, {});
      if (!read.ok) {
        // An oversized body is not read to its end: the connection closes after the error.
        if (read.status === 413) throw new RestHttpError(413, 'RESOURCE_EXHAUSTED', read.message, { connection: 'close' });
        throw new RequestMalformedError(read.code === -32700 ? `Invalid JSON payload: ${read.message}` : read.message);
      }
      if (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)) throw new RequestMalformedError('The request body must be a JSON object');
      body = read.value as Record<string, unknown>;
    }
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(request.headers.get(HTTP_EXTENSION_HEADER) || undefined),
      user: new A2aPrincipal(options.principal),
      headers: headerRecord(request.headers),
      requestedVersion: request.headers.get(A2A_VERSION_HEADER) || undefined,
    });
    validateVersion(context.requestedVersion, await options.handler.getAgentCard(), 'HTTP+JSON');
    const query = new URL(request.url).searchParams;
    const reply = await runRestRoute(options.handler, { method, path: options.path, query, body }, context);
    return await restResultResponse(reply, options.log);
  } catch (error) {
    if (!(error instanceof RestHttpError) && !(error instanceof A2AError)) options.log?.(`A2A REST request failed: ${clipForLog((error as Error).message)}`);
    return restErrorResponse(error);
  }
}
