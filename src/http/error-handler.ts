// Maps every failure, ours and the framework's, to the error model; also answers unknown routes
// (404) and known paths with another method (405).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type FieldErrors } from '../errors.ts';
import { CommitOutcomeUnknown, StoreUnavailable } from '../store/errors.ts';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** `/origins/0/origin_data` → `origins[0].origin_data`; a missing property names itself. */
function fieldPath(issue: ValidationIssue): string {
  const parts = issue.instancePath.split('/').filter((p) => p !== '');
  const missing = issue.params['missingProperty'];
  if (issue.keyword === 'required' && typeof missing === 'string') parts.push(missing);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

function validationError(error: FastifyError): ApiError {
  const fields: FieldErrors = {};
  for (const issue of (error.validation ?? []) as ValidationIssue[]) {
    const key = fieldPath(issue) || (error.validationContext ?? 'body');
    fields[key] ??= issue.message ?? 'is invalid';
  }
  const where = error.validationContext === 'body' || error.validationContext === undefined ? 'body' : error.validationContext;
  return new ApiError(400, 'invalid_input', `invalid request ${where}`, { fields });
}

function toApiError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof CommitOutcomeUnknown)
    return new ApiError(503, 'commit_outcome_unknown', 'the connection to the database failed while the change was being committed: it may or may not have been stored; read it back before sending it again');
  if (error instanceof StoreUnavailable)
    return new ApiError(503, 'store_unavailable', 'the database could not be reached, or its connection failed before anything was committed: nothing was stored; send the request again shortly', {
      headers: { 'retry-after': '1' },
    });
  if (error.validation) return validationError(error);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'body_too_large', 'request body is too large (JSON bodies: 1 MiB; a zone file sent as text/plain: 10 MiB)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', 'unsupported content type; send application/json (zone import also takes text/plain)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'uri_too_long', 'a path segment is longer than 1024 characters');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'bad_url', 'the URL is malformed (bad percent-encoding?)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'bad_content_length', 'Content-Length does not match the body');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, 'bad_request', error.message);
  return new ApiError(500, 'internal_error', 'internal error');
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(error.body());
}

/**
 * Errors Fastify raises before routing (a malformed URL, an over-long path parameter): the same
 * error model as everywhere else.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendError(reply, toApiError(error));
}

/** Path patterns of every route, to tell "no such path" (404) from "not this method" (405). */
function routeMatcher(app: FastifyInstance): (url: string) => string[] {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*');
    const methods = [route.method].flat().map(String);
    routes.push({ pattern: new RegExp(`^${source}$`), methods });
  });
  return (url) => {
    const path = url.split('?')[0] ?? '';
    return [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))];
  };
}

export function registerErrorHandling(app: FastifyInstance): void {
  const allowedMethods = routeMatcher(app);
  app.setErrorHandler((error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url);
    if (allowed.length > 0) {
      return sendError(
        reply,
        new ApiError(405, 'method_not_allowed', `method ${request.method} is not allowed here`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return sendError(reply, new ApiError(404, 'route_not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`));
  });
}
