import type { RequestListener } from 'node:http';
import type { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import { errorBody } from '../error-handler.js';
import { withoutQuery } from '../request/request-url.js';

/** hono's `app.fetch` (a type only: nothing of the adapter is loaded by this module's own import) */
type Fetch = Parameters<typeof getRequestListener>[0];

/**
 * hono's node adapter (@hono/node-server) as the server's listener, loaded with the first request
 * that reaches it. Its module subclasses Node's fetch `Request` and imports node:http2, which
 * loads Node's whole fetch implementation and the HTTP/2 module as herald starts: a sizeable share
 * of a cold start (docs/performance.md), and memory, for a gateway that may only ever answer
 * webhooks and probes (answered without it: exchange/node-door.ts, liveness-listener.ts). Requests
 * that arrive while it loads wait for it; a failure to load is answered 500 and logged.
 * `hostname` (the listening address) is the URL's host of a request that names none.
 */
export function lazyHonoListener(fetch: Fetch, hostname: string, logger: Logger): RequestListener {
  let listener: RequestListener | undefined;
  let loading: Promise<RequestListener> | undefined;
  return function honoListener(incoming, outgoing) {
    if (listener) return listener(incoming, outgoing);
    loading ??= import('@hono/node-server').then(({ getRequestListener }) => (listener = getRequestListener(fetch, { hostname })));
    loading.then(
      (loaded) => loaded(incoming, outgoing),
      (err: unknown) => {
        loading = undefined;
        logger.error({ err }, 'the HTTP adapter failed to load');
        if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'application/json' });
        outgoing.end(JSON.stringify(errorBody(new HeraldError('HERALD_INTERNAL'), withoutQuery(incoming.url ?? '/'))));
      },
    );
  };
}
