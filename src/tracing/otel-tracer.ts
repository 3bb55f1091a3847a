import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import type { SpanKindName, SpanOptions, TraceAttributes, TraceSpan, Tracer } from './trace-span.js';
import type { TracingOptions } from './tracing-options.js';

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  internal: SpanKind.INTERNAL,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

const w3c = new W3CTraceContextPropagator();
const fromRecord: TextMapGetter<Record<string, string>> = { keys: (c) => Object.keys(c), get: (c, key) => c[key] };

/** herald's span around OpenTelemetry's */
class OtelSpan implements TraceSpan {
  readonly recording: boolean;
  constructor(readonly span: Span) {
    this.recording = span.isRecording();
  }
  set(attributes: TraceAttributes): void {
    if (!this.recording) return;
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.span.setAttribute(key, value);
    }
  }
  fail(error: unknown): void {
    // the code or class only: an error's message may quote a payload or a provider's echo of a prompt
    const type = (error as { code?: unknown } | null)?.code;
    const name = typeof type === 'string' ? type : error instanceof Error ? error.name : 'Error';
    this.span.setAttribute('error.type', name);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: name });
  }
  end(at?: number): void {
    this.span.end(at);
  }
}

let contextManager: AsyncLocalStorageContextManager | undefined;

/**
 * Tracing on: the Node SDK's tracer provider with the OTLP/HTTP exporter of the chosen encoding,
 * spans batched. The provider is not registered globally: herald starts its spans through this
 * tracer only, and a second start (a reload, a test's second gateway) swaps it whole. The context
 * manager is global (context.with needs it), set once.
 */
export function otelTracer(options: TracingOptions): Tracer {
  if (!contextManager) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
  }
  const exporterOptions = { ...(options.url && { url: options.url }), headers: options.headers };
  const exporter = options.protocol === 'http/json' ? new JsonExporter(exporterOptions) : new ProtobufExporter(exporterOptions);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion })),
    ...(options.sampleRatio !== undefined && { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }) }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('herald', options.serviceVersion);

  const parentOf = (parent: string | null | undefined): Context => {
    if (parent === undefined) return context.active();
    if (parent === null) return ROOT_CONTEXT;
    return w3c.extract(ROOT_CONTEXT, { traceparent: parent }, fromRecord);
  };

  return {
    start(name: string, o: SpanOptions): TraceSpan {
      const span = tracer.startSpan(name, { kind: KINDS[o.kind ?? 'internal'], ...(o.startTime !== undefined && { startTime: o.startTime }) }, parentOf(o.parent));
      const wrapped = new OtelSpan(span);
      if (o.attributes) wrapped.set(o.attributes);
      return wrapped;
    },
    within<T>(span: TraceSpan, fn: () => T): T {
      return context.with(trace.setSpan(context.active(), (span as OtelSpan).span), fn);
    },
    active(): TraceSpan | undefined {
      const span = trace.getSpan(context.active());
      return span && new OtelSpan(span);
    },
    inject(carrier: Record<string, string>): void {
      w3c.inject(context.active(), carrier, { set: (c, key, value) => (c[key] = value) });
    },
    logFields() {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
