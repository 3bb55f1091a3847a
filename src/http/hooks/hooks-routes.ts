import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { trimSlashes } from '../../mappings/hook-request.js';
import { clientAddress } from '../client-address.js';
import { readBody } from '../read-body.js';
import { requestHeaders } from '../request-headers.js';
import { setResponseHeader } from '../response-header.js';
import { answerHook, type HookRouteDeps } from './answer-hook.js';
import type { HookAnswer, HookExchange } from './hook-exchange.js';
import { hooksPrefix } from '../../config/hooks-path.js';

/**
 * The webhook surface as hono routes: what `app.request()` and any fetch-based server reach.
 * `herald serve` answers it from Node's request directly (hooks-listener.ts); both run
 * `answerHook`, and the app's middleware (request id, client address, receipt, errors) wraps this one.
 */
export function hooksRoutes(deps: HookRouteDeps): Hono {
  const prefix = hooksPrefix(deps.config.hooks.path);
  const app = new Hono();
  app.all('*', async (c) => answered(c, await answerHook(exchangeOf(c, prefix), deps)));
  return app;
}

function exchangeOf(c: Context, prefix: string): HookExchange {
  return {
    method: c.req.method,
    path: trimSlashes(c.req.path.slice(prefix.length)),
    // already normalised: the adapter built it with new URL
    url: c.req.url,
    headers: requestHeaders(c),
    clientAddress: clientAddress(c),
    requestId: c.get('requestId'),
    notes: c.get('receiptNotes'),
    readBody: (limits) => readBody(c, limits),
    setHeader: (name, value) => setResponseHeader(c, name, value),
    set mappingId(id: string | undefined) {
      c.set('mappingId', id);
    },
    set bodyBytes(bytes: number | undefined) {
      c.set('bodyBytes', bytes);
    },
  };
}

function answered(c: Context, answer: HookAnswer): Response {
  const headers = answer.contentType ? { ...answer.headers, 'Content-Type': answer.contentType } : answer.headers;
  return c.body(answer.body as string, answer.status as ContentfulStatusCode, headers);
}
