/** What a span may carry: plain values only, never a body, payload value, prompt, reply, token or key. */
export type TraceAttributes = Record<string, string | number | boolean | string[] | undefined>;

export type SpanKindName = 'server' | 'client' | 'internal' | 'producer' | 'consumer';

/** A span of herald's own: the few things herald does with one, whatever implements it. */
export interface TraceSpan {
  /** false for the stand-in of tracing off: callers skip work that only feeds a span */
  readonly recording: boolean;
  set(attributes: TraceAttributes): void;
  /** marks the span failed, naming the error's code or class (its message may quote what it was sent) */
  fail(error: unknown): void;
  /** ends it now, or at `at` (epoch ms) */
  end(at?: number): void;
}

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: TraceAttributes;
  /**
   * The parent: a W3C traceparent (one stored with a run or a delivery, or a caller's that is
   * trusted); null for a new trace; undefined for the span active where it starts.
   */
  parent?: string | null;
  /** when it began (epoch ms), for a span of a wait measured afterwards (a run's time in the queue) */
  startTime?: number;
}

/** What tracing does when it is on (otel-tracer.ts, loaded only then). */
export interface Tracer {
  start(name: string, options: SpanOptions): TraceSpan;
  within<T>(span: TraceSpan, fn: () => T): T;
  /** the span active here, to annotate; undefined outside any */
  active(): TraceSpan | undefined;
  /** the active context as a W3C traceparent (and tracestate), for a header or the store */
  inject(carrier: Record<string, string>): void;
  /** trace_id and span_id of the active span, for a log line */
  logFields(): { trace_id?: string; span_id?: string };
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** the stand-in while tracing is off: every call is a no-op */
export const NO_SPAN: TraceSpan = Object.freeze({
  recording: false,
  set() {},
  fail() {},
  end() {},
});
