import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { completion } from '../models/fake-openai.js';
import { startFakeCollector, type FakeCollector, type ReceivedSpan } from '../helpers/fake-otlp-collector.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { KIND, only, traceparentOf } from './span-assertions.js';

/**
 * Traces end to end, in both OTLP encodings: one signed webhook followed through its run,
 * executed after a restart (the trace context read back from the store), to its reply's delivery,
 * retried once, with the right parents; the model and the webhook channel's target receive a
 * traceparent continuing the trace; logs and admin records point at it; nothing secret is exported.
 */
const GITHUB_SECRET = 'gh-trace-secret-Xq8v2LkP0aZ9';
const MODEL_KEY = 'sk-upstream-trace-key-7Hn3';
const CHANNEL_SECRET = `whsec_${Buffer.from('trace-channel-secret-0123456789').toString('base64')}`;
// values that must never reach a span: the payload's, the prompt's, the reply's
const PAYLOAD_VALUE = 'payload-value-Zr41-private';
const REPLY_TEXT = 'reply-text-Kb77-private';
// a sender's own trace, which /hooks does not continue by default
const SENDER_TRACE = '0af7651916cd43dd8448eb211c80319c';

let herald: RunningHerald | undefined;
let collector: FakeCollector | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await collector?.close();
  collector = undefined;
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

function config(protocol: string, model: FakeServer, channel: FakeServer, endpoint: string) {
  return baseConfig({
    tracing: { enabled: true, endpoint, protocol, linkTemplate: 'http://jaeger.example/trace/{traceId}' },
    models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: MODEL_KEY } } },
    agents: { defaults: { model: 'fake/test-model' } },
    channels: { webhook: { url: `${channel.url}/inbox`, secret: CHANNEL_SECRET } },
    delivery: { baseDelayMs: 10, maxDelayMs: 20 },
    hooks: {
      mappings: [
        {
          id: 'github',
          match: { path: 'github' },
          action: 'agent',
          name: 'GitHub',
          messageTemplate: 'Issue: {{issue.title}}',
          channel: 'webhook',
          // no heartbeat turn over the run's summary: its reply would be one more delivery, in a trace of its own
          wakeMode: 'next-heartbeat',
          auth: { type: 'github', secret: GITHUB_SECRET },
        },
      ],
    },
  });
}

/** a GitHub delivery, signed as GitHub signs it (its own library) */
async function signedWebhook(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const body = JSON.stringify({ action: 'opened', issue: { title: PAYLOAD_VALUE } });
  return fetch(`${url}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': await sign(GITHUB_SECRET, body), ...headers },
    body,
  });
}

describe.each(['http/protobuf', 'http/json'])('traces over OTLP %s', (protocol) => {
  it('follow a signed webhook through a run executed after a restart to a delivery retried once, with the right parents', async () => {
    collector = await startFakeCollector();
    // the model hangs on its first call (herald restarts in the middle of it), then answers
    let modelCalls = 0;
    const model = await startFakeServer(() => (++modelCalls === 1 ? 'hang' : { body: completion(REPLY_TEXT) }));
    // the channel's target fails the first attempt, then takes the reply
    let sends = 0;
    const channel = await startFakeServer(() => (++sends === 1 ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true } }));
    fakes.push(model, channel);
    herald = await startHerald(config(protocol, model, channel, collector.url));

    const res = await signedWebhook(herald.url, { traceparent: `00-${SENDER_TRACE}-b7ad6b7169203331-01` });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(() => model.requests.length === 1);
    // a restart while the run's model call hangs: the run goes back to the queue, and the next
    // process executes it, reading its trace context from the store
    herald = await herald.restart();
    await eventually(async () => {
      const r = await fetch(`${herald!.url}/admin/deliveries?run=${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
      const { data } = (await r.json()) as { data: { status: string }[] };
      return data[0]?.status === 'delivered';
    });
    await herald.stop();
    const spans = await eventually(() => collector!.spans.filter((s) => s.name === 'herald.delivery.attempt' && s.attributes['herald.run.id'] === runId).length === 2 && collector!.spans) as ReceivedSpan[];

    // one trace, started here: the sender's traceparent is not continued on /hooks by default
    const request = only(spans, (s) => s.name === 'POST /hooks/github');
    const { traceId } = request;
    expect(traceId).not.toBe(SENDER_TRACE);
    expect(request).toMatchObject({ kind: KIND.server, parentSpanId: '' });
    expect(request.attributes).toMatchObject({ 'http.response.status_code': 202, 'herald.mapping.id': 'github', 'herald.auth.method': 'signature', 'herald.auth.outcome': 'accepted', 'herald.auth.signed_by': 'github' });
    expect(request.resource['service.name']).toBe('herald');
    const trace = spans.filter((s) => s.traceId === traceId);

    const intake = only(trace, (s) => s.name === 'herald.hook.intake');
    expect(intake.parentSpanId).toBe(request.spanId);
    expect(intake.attributes).toMatchObject({ 'herald.mapping.id': 'github', 'herald.hook.outcome': 'dispatched', 'herald.idempotency.replayed': false, 'herald.run.id': runId });

    // the run twice: cut short by the restart, then executed by the next process; both in the request's trace, under its intake
    const runs = trace.filter((s) => s.name === 'herald.run');
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run).toMatchObject({ kind: KIND.consumer, parentSpanId: intake.spanId, attributes: expect.objectContaining({ 'herald.run.id': runId }) });
    const executed = runs.sort((a, b) => a.startMs - b.startMs)[1]!;
    expect(executed.attributes).toMatchObject({ 'herald.run.status': 'succeeded', 'herald.model.ref': 'fake/test-model' });
    expect(trace.filter((s) => s.name === 'herald.run.queued').every((s) => s.parentSpanId === intake.spanId)).toBe(true);

    // its model call, by OpenTelemetry's GenAI conventions, continued at the model
    const call = only(trace, (s) => s.name === 'chat test-model' && s.parentSpanId === executed.spanId);
    expect(call.kind).toBe(KIND.client);
    expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'fake', 'gen_ai.request.model': 'test-model', 'gen_ai.usage.input_tokens': expect.any(Number), 'gen_ai.usage.output_tokens': expect.any(Number) });
    expect(traceparentOf(model.requests[1]!.headers.traceparent)).toEqual({ traceId, parentId: call.spanId });

    // two delivery attempts under the run: a retry scheduled after the 503, then delivered; each continued at the channel's target
    const attempts = trace.filter((s) => s.name === 'herald.delivery.attempt').sort((a, b) => a.startMs - b.startMs);
    expect(attempts.map((a) => a.parentSpanId)).toEqual([executed.spanId, executed.spanId]);
    expect(attempts[0]!.attributes).toMatchObject({ 'herald.delivery.channel': 'webhook', 'herald.delivery.attempt': 1, 'herald.delivery.outcome': 'retry', 'herald.delivery.platform_status': 503, 'herald.delivery.retry_in_ms': expect.any(Number) });
    expect(attempts[1]!.attributes).toMatchObject({ 'herald.delivery.attempt': 2, 'herald.delivery.outcome': 'delivered' });
    expect(channel.requests.map((r) => traceparentOf(r.headers.traceparent))).toEqual(attempts.map((a) => ({ traceId, parentId: a.spanId })));

    // the exports used the encoding asked for
    expect(new Set(collector.exports.map((e) => e.contentType.split(';')[0]))).toEqual(new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']));

    // logs and records point at the trace
    const accessLine = herald.logs.find((l) => l.msg === 'delivered');
    expect(accessLine).toMatchObject({ trace_id: traceId, span_id: attempts[1]!.spanId });
    herald = await herald.restart();
    const admin = (path: string) => fetch(`${herald!.url}/admin${path}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } }).then((r) => r.json() as Promise<any>);
    expect((await admin(`/runs/${runId}`)).traceId).toBe(traceId);
    const receipts = (await admin('/receipts')).data as { path: string; traceId: string }[];
    expect(receipts.find((r) => r.path === 'github')?.traceId).toBe(traceId);
    const session = await fetch(`${herald.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
    expect(((await session.json()) as { traceLinkTemplate: string }).traceLinkTemplate).toBe('http://jaeger.example/trace/{traceId}');

    // nothing secret in anything exported: bodies, payload values, prompts, replies, tokens, keys
    await herald.stop();
    const exported = Buffer.concat(collector.exports.map((e) => e.body)).toString('latin1');
    for (const secret of [PAYLOAD_VALUE, REPLY_TEXT, 'Issue:', GITHUB_SECRET, MODEL_KEY, CHANNEL_SECRET, HOOK_TOKEN, GATEWAY_TOKEN, API_KEY]) expect(exported).not.toContain(secret);
    for (const e of collector.exports) expect(JSON.stringify(e.headers)).not.toContain(MODEL_KEY);
  });
});

describe('trace context in and out', () => {
  it('/v1 continues a caller\'s traceparent (tracing.trustIncomingContext.v1), and /hooks does when told to', async () => {
    collector = await startFakeCollector();
    const model = await startFakeServer(() => ({ body: completion('hello back') }));
    fakes.push(model);
    herald = await startHerald(
      baseConfig({
        tracing: { enabled: true, endpoint: collector.url, trustIncomingContext: { hooks: true } },
        models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
        agents: { defaults: { model: 'fake/test-model' } },
      }),
    );
    const caller = '4bf92f3577b34da6a3ce929d0e0e4736';
    const chat = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', traceparent: `00-${caller}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    const wake = await fetch(`${herald.url}/hooks/wake`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json', traceparent: `00-${SENDER_TRACE}-b7ad6b7169203331-01` },
      body: JSON.stringify({ text: 'ping', mode: 'next-heartbeat' }),
    });
    expect(wake.status).toBe(200);
    await herald.stop();
    const spans = (await eventually(() => collector!.spans.some((s) => s.name === 'POST /hooks/wake') && collector!.spans)) as ReceivedSpan[];
    const chatRequest = only(spans, (s) => s.name === 'POST /v1/chat/completions');
    expect(chatRequest).toMatchObject({ traceId: caller, parentSpanId: '00f067aa0ba902b7' });
    const call = only(spans, (s) => s.name === 'chat test-model');
    expect(call.traceId).toBe(caller);
    expect(traceparentOf(model.requests[0]!.headers.traceparent)).toEqual({ traceId: caller, parentId: call.spanId });
    expect(only(spans, (s) => s.name === 'POST /hooks/wake')).toMatchObject({ traceId: SENDER_TRACE, parentSpanId: 'b7ad6b7169203331' });
  });

  it('sends no traceparent and writes no trace ids while tracing is off', async () => {
    const model = await startFakeServer(() => ({ body: completion('hello back') }));
    fakes.push(model);
    herald = await startHerald(baseConfig({ models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } }, agents: { defaults: { model: 'fake/test-model' } } }));
    const chat = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', traceparent: `00-${SENDER_TRACE}-b7ad6b7169203331-01` },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    expect(model.requests[0]!.headers.traceparent).toBeUndefined();
    expect(herald.logs.find((l) => l.msg === 'request')).not.toHaveProperty('trace_id');
  });
});
