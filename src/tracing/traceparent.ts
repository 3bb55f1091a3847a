/** W3C Trace Context's traceparent (https://www.w3.org/TR/trace-context/#traceparent-header): version-traceid-parentid-flags */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** the trace id of a stored traceparent, for the admin records and the console's link; undefined when there is none */
export function traceIdOf(traceparent: string | null | undefined): string | undefined {
  if (!traceparent) return undefined;
  const parts = TRACEPARENT.exec(traceparent);
  if (!parts || parts[1] === 'ff' || ZEROS.test(parts[2]!) || ZEROS.test(parts[3]!)) return undefined;
  return parts[2];
}
