import { NO_SPAN, type SpanOptions, type TraceAttributes, type TraceSpan, type Tracer } from './trace-span.js';
import type { TracingOptions } from './tracing-options.js';

export type { SpanOptions, TraceAttributes, TraceSpan } from './trace-span.js';

/**
 * The one tracer of the process: undefined while tracing is off, so every function below is a
 * check of one variable and nothing of OpenTelemetry is loaded. It is process-wide because the
 * context it follows (AsyncLocalStorage) is.
 */
let tracer: Tracer | undefined;
let startedWith = '';

/** turns tracing on with these options (loading the SDK), or off when undefined; the same options again change nothing */
export async function startTracing(options: TracingOptions | undefined): Promise<void> {
  const key = options ? JSON.stringify(options) : '';
  if (key === startedWith) return;
  const previous = tracer;
  tracer = undefined;
  startedWith = key;
  if (previous) await previous.shutdown();
  if (!options) return;
  const { otelTracer } = await import('./otel-tracer.js');
  tracer = otelTracer(options);
}

/** sends what is recorded now (a stop, a test reading its collector) */
export function flushTracing(): Promise<void> {
  return tracer ? tracer.flush() : Promise.resolve();
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

/** a span begun now; end() it. `traced` is the usual way, this is for a span that outlives a call (a request) */
export function startSpan(name: string, options: SpanOptions = {}): TraceSpan {
  return tracer ? tracer.start(name, options) : NO_SPAN;
}

/** `fn` with `span` active: what it starts, logs and sends belongs to the span */
export function withSpan<T>(span: TraceSpan, fn: () => T): T {
  return tracer && span !== NO_SPAN ? tracer.within(span, fn) : fn();
}

/**
 * `fn` inside a span of its own, ended when `fn` returns or its promise settles, failed when it
 * throws. Tracing off, `fn` is called as it is: a synchronous answer stays synchronous.
 */
export function traced<T>(name: string, options: SpanOptions, fn: (span: TraceSpan) => T): T {
  if (!tracer) return fn(NO_SPAN);
  const span = tracer.start(name, options);
  let result: T;
  try {
    result = tracer.within(span, () => fn(span));
  } catch (error) {
    span.fail(error);
    span.end();
    throw error;
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return endedWhenSettled(span, result) as T;
}

/** `call`, with `span` ended when it settles (failed first when it rejects) */
export function endedWhenSettled<T>(span: TraceSpan, call: Promise<T>): Promise<T> {
  return call.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    },
  );
}

/** attributes on the span active here (the request's mapping, a delivery's outcome) */
export function annotate(attributes: TraceAttributes): void {
  tracer?.active()?.set(attributes);
}

/** the active context as a traceparent, stored with work done later (a run, a delivery); undefined while off */
export function currentTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const carrier: Record<string, string> = {};
  tracer.inject(carrier);
  return carrier.traceparent;
}

/** the active span's trace id (a webhook's receipt records it); undefined while off */
export function currentTraceId(): string | undefined {
  return tracer ? tracer.logFields().trace_id : undefined;
}

/** `headers` with the active context's traceparent added: on herald's calls to models, MCP servers and webhook targets */
export function withTraceHeaders<H extends Record<string, string>>(headers: H): H {
  if (tracer) tracer.inject(headers);
  return headers;
}

/** a log line's trace_id and span_id (a fresh object: pino's mixin merges into it) */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  return tracer ? tracer.logFields() : {};
}
