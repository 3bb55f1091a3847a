import { z } from 'zod';

/**
 * Traces (OpenTelemetry, docs/operations.md#tracing). Every field left unset falls back to the
 * standard OTEL_* environment variable of the same meaning, so a collector set up for other
 * services needs nothing here: OTEL_EXPORTER_OTLP_ENDPOINT alone turns tracing on.
 */
export const tracingSchema = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe('Exports traces (OTLP over HTTP). Unset: on when OTEL_EXPORTER_OTLP_ENDPOINT is set, else off. Off, no OpenTelemetry code is loaded and no traceparent is sent.'),
    endpoint: z
      .url()
      .optional()
      .describe('The collector\'s OTLP/HTTP base URL (e.g. http://otel-collector:4318); spans go to <endpoint>/v1/traces. Unset: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318.'),
    protocol: z
      .enum(['http/protobuf', 'http/json'])
      .optional()
      .describe('OTLP encoding. Unset: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf.'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Headers sent with every export (a collector\'s API key: use ${ENV} substitution), added to OTEL_EXPORTER_OTLP_HEADERS.'),
    serviceName: z
      .string()
      .min(1)
      .optional()
      .describe('service.name of every span. Unset: OTEL_SERVICE_NAME, else herald.'),
    sampleRatio: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Share of new traces recorded (parent-based: a continued trace follows its caller\'s decision). Unset: OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, else every trace.'),
    trustIncomingContext: z
      .object({
        hooks: z
          .boolean()
          .default(false)
          .describe('Continues a webhook request\'s W3C traceparent. Off: outside senders could choose trace ids (and sampling) of herald\'s traces; each webhook starts its own trace.'),
        v1: z.boolean().default(true).describe('Continues a /v1 request\'s W3C traceparent (the platform API\'s callers are your own services).'),
      })
      .strict()
      .prefault({})
      .describe('Whose incoming traceparent header is continued; a request not trusted starts a new trace.'),
    linkTemplate: z
      .string()
      .regex(/\{traceId\}/, 'must contain {traceId}')
      .optional()
      .describe('The operator\'s tracing UI, for the console\'s links: a URL with {traceId}, e.g. http://jaeger:16686/trace/{traceId} or a Grafana Tempo explore URL.'),
  })
  .strict();

export type TracingConfig = z.output<typeof tracingSchema>;
