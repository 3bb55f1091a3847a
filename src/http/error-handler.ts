import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { errorCatalog, HeraldError } from '../errors.js';
import { errorDetail } from '../log/log-detail.js';

/** the OpenAI error type of each status, for the /v1 surface */
export function openaiType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The one place errors become responses: OpenAI's shape under /v1, `{ok:false,error}` elsewhere (with the catalog's `code` under /admin and /console). */
export function errorResponse(c: Context, error: HeraldError): Response {
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(errorBody(error, c.req.path), error.status as never);
}

/** an error's JSON body on the surface of `path` */
export function errorBody(error: HeraldError, path: string): Record<string, unknown> {
  if (path === '/v1' || path.startsWith('/v1/')) {
    return {
      error: {
        message: error.message,
        type: openaiType(error.status),
        param: error.param ?? null,
        code: error.openaiCode ?? errorCatalog[error.code].openai,
      },
    };
  }
  const body: Record<string, unknown> = { ok: false, error: error.message };
  // an operator's client branches on the catalog's code, as a /v1 client does on error.code; the
  // webhook surface keeps the two fields its senders know
  if (isOperatorPath(path)) body.code = error.code;
  if (error.details !== undefined) body.details = error.details;
  return body;
}

const isOperatorPath = (path: string) => ['/admin', '/console'].some((root) => path === root || path.startsWith(`${root}/`));

export function errorHandler(logger: Logger): ErrorHandler {
  return function errorHandler(error, c) {
    return errorResponse(c, answerableError(error, logger, c.get('requestId'), c.req.path));
  };
}

/**
 * What a thrown error answers: a HeraldError itself, a framework's client error as the HeraldError
 * it is; anything else is herald's fault, logged and answered 500 without its detail.
 */
export function answerableError(error: unknown, logger: Logger, reqId: string | undefined, path: string): HeraldError {
  if (error instanceof HeraldError) {
    if (error.code === 'HERALD_CLIENT_CLOSED') logger.debug({ reqId, path }, 'client closed the request mid-body');
    return error;
  }
  if (error instanceof HTTPException && error.status === 413) return new HeraldError('HERALD_PAYLOAD_TOO_LARGE');
  if (error instanceof HTTPException && error.status < 500) return new HeraldError('HERALD_BAD_REQUEST', error.message || undefined);
  logger.error({ ...errorDetail(logger, error), reqId, path }, 'unhandled error');
  return new HeraldError('HERALD_INTERNAL');
}
