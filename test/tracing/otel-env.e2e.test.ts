import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeCollector, type FakeCollector } from '../helpers/fake-otlp-collector.js';
import { HOOK_TOKEN, baseConfig, eventually, tempDir } from '../helpers/start-herald.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';

/**
 * `herald serve` configured for tracing by OpenTelemetry's standard environment variables alone
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/,
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/): the endpoint turns it on, the
 * protocol, headers, service name and sampler are the variables'.
 */
let spawned: SpawnedHerald | undefined;
let collector: FakeCollector | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
  await collector?.close();
  collector = undefined;
});

async function serve(env: Record<string, string>): Promise<string> {
  const dir = tempDir();
  const config = path.join(dir, 'herald.json');
  fs.writeFileSync(config, JSON.stringify(baseConfig()));
  spawned = spawnHerald(['serve', '--config', config], { env });
  return (await spawned.waitFor(/herald listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
}

const wake = (url: string) =>
  fetch(`${url}/hooks/wake`, { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hello', mode: 'next-heartbeat' }) });

describe('tracing from OTEL_* variables', { timeout: 90_000 }, () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT turns it on; the protocol, headers, service name and sampler are the variables\'', async () => {
    collector = await startFakeCollector();
    const url = await serve({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector-key-0123',
      OTEL_SERVICE_NAME: 'herald-staging',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1',
    });
    // the start says tracing is on and where spans go, never the headers (a collector's key)
    const started = (await spawned!.waitFor(/tracing: on, .*/))[0];
    expect(started).toBe(`tracing: on, spans to ${collector.url}/v1/traces (OTLP http/json) as service "herald-staging"`);
    expect(spawned!.stderr() + spawned!.stdout()).not.toContain('collector-key-0123');
    expect((await wake(url)).status).toBe(200);
    spawned!.child.kill('SIGTERM');
    expect(await spawned!.exited).toBe(0);
    const request = await eventually(() => collector!.spans.find((s) => s.name === 'POST /hooks/wake'));
    expect(request.resource['service.name']).toBe('herald-staging');
    expect(collector.exports[0]!.contentType).toMatch(/^application\/json/);
    expect(collector.exports[0]!.headers['x-collector-key']).toBe('collector-key-0123');
    // the log line of the request names its trace
    const line = spawned!.stdout().split('\n').find((l) => l.includes('"msg":"request"') && l.includes('/hooks/wake'));
    expect(JSON.parse(line!)).toMatchObject({ trace_id: request.traceId, span_id: request.spanId });
  });

  it('OTEL_TRACES_SAMPLER=always_off records nothing, and a protocol herald does not speak is refused at start naming it', async () => {
    collector = await startFakeCollector();
    const url = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: 'always_off' });
    expect((await wake(url)).status).toBe(200);
    spawned!.child.kill('SIGTERM');
    expect(await spawned!.exited).toBe(0);
    expect(collector.spans).toEqual([]);

    const refused = spawnHerald(['serve', '--config', path.join(tempDir(), 'herald.json')], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } });
    spawned = refused;
    expect(await refused.exited).not.toBe(0);
    expect(refused.stderr()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: herald exports traces over http/protobuf or http/json, not "grpc"');
  });
});
