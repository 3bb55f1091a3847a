import type { IncomingMessage, RequestListener } from 'node:http';
import { currentTraceId, startSpan, tracingOn, withSpan, annotate } from '../../tracing/tracing.js';
import type { ReceiptInput } from '../../runtime/receipts/receipt-recorder.js';
import { withoutQuery } from '../request/request-url.js';
import { carriedSurface, type RequestSurface } from '../request/request-surface.js';

/** whose incoming traceparent is continued (tracing.trustIncomingContext) */
export interface IncomingTrust {
  hooks: boolean;
  v1: boolean;
}

/**
 * Every request of the server as a span (the SERVER span of its trace), around the listener that
 * answers it, so whatever the routes start (the intake, a chat's model call) is its child. A
 * caller's W3C traceparent is continued only where `trust` says so; elsewhere each request starts
 * a trace of its own. Installed only while tracing is on: off, the server's listener is bare. The
 * surface is the one the server decided as the request entered (request-surface.ts).
 */
export function withRequestSpans(listener: RequestListener, trust: IncomingTrust): RequestListener {
  if (!tracingOn()) return listener;
  return function tracedRequest(incoming, outgoing) {
    const method = incoming.method ?? 'GET';
    const path = withoutQuery(incoming.url ?? '/');
    const surface = carriedSurface(incoming);
    if (untraced(method, surface)) return listener(incoming, outgoing);
    const trusted = surface === 'hooks' ? trust.hooks : surface === 'v1' ? trust.v1 : false;
    const given = trusted ? headerOf(incoming, 'traceparent') : undefined;
    const route = routeOf(path, surface);
    const span = startSpan(`${method} ${route}`, {
      kind: 'server',
      parent: given ?? null,
      attributes: { 'http.request.method': method, 'http.route': route, 'url.path': path, 'herald.surface': surface },
    });
    outgoing.once('close', () => {
      const status = outgoing.statusCode;
      span.set({ 'http.response.status_code': status });
      if (status >= 500 || !outgoing.writableFinished) span.fail({ code: status >= 500 ? `HTTP ${status}` : 'client closed' });
      span.end();
    });
    withSpan(span, () => listener(incoming, outgoing));
  };
}

/** what a webhook request's receipt says of its auth and outcome, on its span; and the trace id on the receipt */
export function requestTraced(receipt: ReceiptInput): void {
  const traceId = currentTraceId();
  if (traceId === undefined) return;
  receipt.traceId = traceId;
  annotate({
    'herald.auth.method': receipt.authMethod,
    'herald.auth.outcome': receipt.status === 401 || receipt.status === 403 ? 'refused' : receipt.signature === 'invalid' ? 'invalid_signature' : 'accepted',
    'herald.auth.signed_by': receipt.signature && receipt.signature !== 'invalid' ? receipt.signature : undefined,
    'herald.hook.outcome': receipt.outcome,
    'herald.error.code': receipt.errorCode,
  });
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A read of the operator's side (the console's pages, polls and live stream; probes; the metrics
 * scrape) starts no trace: one every few seconds per open console would bury the traffic's traces.
 * An operator's action (a retry, an approval, a replay, a reload) is a root trace of its own; the
 * run it resumes or makes keeps its own request's trace (docs/operations.md#tracing).
 */
function untraced(method: string, surface: RequestSurface): boolean {
  return READS.has(method) && (surface === 'admin' || surface === 'console' || surface === 'other');
}

/**
 * A route of low cardinality: a hook path is a configured name, kept whole; elsewhere a segment
 * that is not a plain word (an id: file-…, run uuids) is `{id}`.
 */
function routeOf(path: string, surface: RequestSurface): string {
  if (surface === 'hooks') return path;
  return path.replace(/\/[^/]+/g, (segment) => (/^\/([a-z_.]+|v\d+)$/.test(segment) ? segment : '/{id}'));
}

function headerOf(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return typeof value === 'string' ? value : undefined;
}
