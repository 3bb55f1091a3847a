import { describe, expect, it } from 'vitest';
import { resolveTracing } from '../../src/tracing/tracing-options.js';
import { traceIdOf } from '../../src/tracing/traceparent.js';

/** tracing's settings: the config's fields, each falling back to OpenTelemetry's standard variable */
describe('resolveTracing', () => {
  const none = { headers: {} };

  it('is off unless OTEL_EXPORTER_OTLP_ENDPOINT (or the traces one) or tracing.enabled says otherwise', () => {
    expect(resolveTracing(none, '1.0.0', {})).toBeUndefined();
    expect(resolveTracing(none, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject({ protocol: 'http/protobuf', serviceName: 'herald' });
    expect(resolveTracing(none, '1.0.0', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBeDefined();
    expect(resolveTracing({ ...none, enabled: false }, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
    expect(resolveTracing({ ...none, enabled: true }, '1.0.0', {})).toMatchObject({ protocol: 'http/protobuf' });
    // the standard's off switches
    expect(resolveTracing(none, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(resolveTracing(none, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('takes the config\'s fields over the variables, and leaves the endpoint to the exporter when the config names none', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'from-env' };
    expect(resolveTracing(none, '2.0.0', env)).toEqual({ protocol: 'http/json', headers: {}, serviceName: 'from-env', serviceVersion: '2.0.0' });
    expect(resolveTracing({ endpoint: 'http://collector:4318/', protocol: 'http/protobuf', headers: { 'x-key': 'k' }, serviceName: 'mine', sampleRatio: 0.25 }, '2.0.0', env)).toEqual({
      protocol: 'http/protobuf',
      url: 'http://collector:4318/v1/traces',
      headers: { 'x-key': 'k' },
      serviceName: 'mine',
      serviceVersion: '2.0.0',
      sampleRatio: 0.25,
    });
  });

  it('refuses a protocol it does not export over, naming the variable', () => {
    expect(resolveTracing(none, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      fault: 'OTEL_EXPORTER_OTLP_PROTOCOL: herald exports traces over http/protobuf or http/json, not "grpc"',
    });
  });
});

describe('traceIdOf', () => {
  it('reads the trace id of a W3C traceparent, and nothing of an invalid one', () => {
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
    for (const bad of [null, undefined, '', 'nonsense', '00-00000000000000000000000000000000-b7ad6b7169203331-01', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']) expect(traceIdOf(bad)).toBeUndefined();
  });
});
