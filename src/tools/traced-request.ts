import { currentTraceparent } from '../tracing/tracing.js';

/**
 * A request to an MCP server over HTTP with the traceparent of the span it is made in (a tool
 * call's), so a server that traces continues herald's trace; the init as it is while tracing is off.
 */
export function withTraceparent(init: RequestInit | undefined): RequestInit | undefined {
  const traceparent = currentTraceparent();
  if (traceparent === undefined) return init;
  const headers = new Headers(init?.headers);
  headers.set('traceparent', traceparent);
  return { ...init, headers };
}
