import { withTraceHeaders } from '../tracing/tracing.js';

/**
 * A channel request's headers with the traceparent of the delivery attempt it is made in
 * (W3C Trace Context), for targets that trace too (the generic webhook's receivers, the
 * operator's own services); unchanged while tracing is off. Chat platforms have no use for it.
 */
export function traceHeaders<H extends Record<string, string>>(headers: H): H {
  return withTraceHeaders(headers);
}
