import { expect } from 'vitest';
import type { ReceivedSpan } from '../helpers/fake-otlp-collector.js';

/** OTLP's SpanKind numbers */
export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };

/** the trace id and parent span id of a W3C traceparent header (https://www.w3.org/TR/trace-context/#traceparent-header) */
export const traceparentOf = (value: unknown) => {
  const [, traceId, parentId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(value)) ?? [];
  return { traceId, parentId };
};

/** the one span `which` picks, failing with the names of all when there is not exactly one */
export function only(spans: ReceivedSpan[], which: (s: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(which);
  expect(found, `spans: ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
}
