import http from 'node:http';
import protobuf from 'protobufjs';

/**
 * A fake OpenTelemetry collector: a real OTLP/HTTP receiver on 127.0.0.1 that takes
 * `POST /v1/traces` in both encodings the OTLP specification defines
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp): binary protobuf
 * (`application/x-protobuf`, decoded with the OTLP proto definitions below) and JSON
 * (`application/json`, the proto3 JSON mapping with trace and span ids as hex strings,
 * https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). It answers 200 with an
 * empty ExportTraceServiceResponse, as a collector that accepted every span does, and keeps
 * every span decoded to one shape, and every raw body (for the test that nothing secret left).
 */

/**
 * The fields of the OTLP trace protocol herald's spans use, with the numbers of
 * open-telemetry/opentelemetry-proto (opentelemetry/proto/collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto). A decoder skips the
 * fields it does not declare, so the subset reads any exporter's message.
 */
const OTLP_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Event events = 11;
  repeated Link links = 13;
  Status status = 15;
  fixed32 flags = 16;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const root = protobuf.parse(OTLP_PROTO, { keepCase: false }).root;
const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** one span as the collector received it, whatever the encoding */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error */
  statusCode: number;
  statusMessage: string;
  /** the resource's attributes (service.name) */
  resource: Record<string, AttributeValue>;
}

export interface ReceivedExport {
  contentType: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeCollector {
  /** the OTLP/HTTP base URL (tracing.endpoint, OTEL_EXPORTER_OTLP_ENDPOINT) */
  url: string;
  spans: ReceivedSpan[];
  exports: ReceivedExport[];
  close(): Promise<void>;
}

export async function startFakeCollector(): Promise<FakeCollector> {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = String(req.headers['content-type'] ?? '');
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    exports.push({ contentType, headers: req.headers, body });
    try {
      if (contentType.startsWith('application/x-protobuf')) {
        const message = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: Number, bytes: Buffer });
        spans.push(...fromRequest(message as OtlpRequest, idOfBytes));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else if (contentType.startsWith('application/json')) {
        spans.push(...fromRequest(JSON.parse(body.toString('utf8')) as OtlpRequest, idOfJson));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(415).end();
      }
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: unknown;
        spanId: unknown;
        parentSpanId?: unknown;
        name: string;
        kind?: number;
        startTimeUnixNano: number | string;
        endTimeUnixNano: number | string;
        attributes?: OtlpKeyValue[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

/** protobuf carries ids as bytes */
const idOfBytes = (id: unknown) => (Buffer.isBuffer(id) ? id.toString('hex') : '');
/** OTLP/JSON carries them as hex strings */
const idOfJson = (id: unknown) => (typeof id === 'string' ? id.toLowerCase() : '');

function fromRequest(request: OtlpRequest, idOf: (id: unknown) => string): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: idOf(s.traceId),
        spanId: idOf(s.spanId),
        parentSpanId: idOf(s.parentSpanId),
        name: s.name,
        kind: s.kind ?? 0,
        startMs: Number(s.startTimeUnixNano) / 1e6,
        endMs: Number(s.endTimeUnixNano) / 1e6,
        attributes: attributesOf(s.attributes),
        statusCode: s.status?.code ?? 0,
        statusMessage: s.status?.message ?? '',
        resource,
      })),
    );
  });
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

function valueOf(v: OtlpAnyValue | undefined): AttributeValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}
