import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion } from '../models/fake-openai.js';

let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  for (const fake of fakes) await fake.close();
  herald = undefined;
  fakes = [];
});

const ZOOM_SECRET = 'zoom-secret-token-9a8b7c';
const META_VERIFY = 'meta-verify-token-1234';

/** handshakes as the senders document them, each as a mapping of its own */
const handshakes = [
  {
    // https://api.slack.com/apis/events-api#handshake
    id: 'slack-challenge',
    match: { path: 'slack' },
    respond: { when: 'type = "url_verification"', body: '{{challenge}}', contentType: 'text/plain' },
    messageTemplate: 'Slack {{event.type}}',
    deliver: false,
  },
  {
    // https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint
    id: 'zoom-validation',
    match: { path: 'zoom' },
    respond: {
      when: 'event = "endpoint.url_validation"',
      secret: ZOOM_SECRET,
      contentType: 'application/json',
      // `payload.` names the request body itself (OpenClaw's references): Zoom's own field is payload.payload
      body: '{"plainToken":"{{ payload.payload.plainToken }}","encryptedToken":"{{ $hmacSha256($secret, payload.payload.plainToken) }}"}',
    },
    messageTemplate: 'Zoom {{event}}',
    deliver: false,
  },
  {
    // https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks#notificationurl-validation
    id: 'graph-validation',
    match: { path: 'graph' },
    respond: { when: '$exists($query.validationToken)', body: '{{ $query.validationToken }}', contentType: 'text/plain' },
    messageTemplate: 'Graph {{value[0].changeType}}',
    deliver: false,
  },
  {
    // https://developers.facebook.com/docs/graph-api/webhooks/getting-started#verification-requests
    id: 'meta-verification',
    match: { path: 'meta' },
    respond: { method: 'GET', verifyToken: { query: 'hub.verify_token', token: META_VERIFY }, when: '$query."hub.mode" = "subscribe"', body: '{{ $query."hub.challenge" }}' },
    messageTemplate: 'Meta {{object}}',
    deliver: false,
  },
];

const post = (path: string, body: unknown, headers: Record<string, string> = hookHeaders()) =>
  herald!.request(`/hooks/${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

async function runCount(): Promise<number> {
  const res = await herald!.request(`/admin/runs?limit=100`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  return ((await res.json()) as { data: unknown[] }).data.length;
}

describe('respond: handshakes', () => {
  it('answers Slack, Zoom and Microsoft Graph handshakes as their docs say, starting no run; other requests go on as usual', async () => {
    herald = await testApp({ hooks: { mappings: handshakes } });

    const slack = await post('slack', { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' });
    expect(slack.status).toBe(200);
    expect(slack.headers.get('content-type')).toBe('text/plain');
    expect(await slack.text()).toBe('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');

    const zoom = await post('zoom', { payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: 1654503849680, event: 'endpoint.url_validation' });
    expect(zoom.status).toBe(200);
    expect(await zoom.json()).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: createHmac('sha256', ZOOM_SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex') });

    // Graph posts the token URL-encoded in the query, with an empty text/plain body
    const graph = await herald.request(`/hooks/graph?validationToken=${encodeURIComponent('Validation: Testing client application reachability for subscription Request-Id: 62c5-4d2f')}`, {
      method: 'POST',
      headers: { ...hookHeaders(), 'content-type': 'text/plain' },
    });
    expect(graph.status).toBe(200);
    expect(await graph.text()).toBe('Validation: Testing client application reachability for subscription Request-Id: 62c5-4d2f');
    expect(await runCount()).toBe(0);

    const event = await post('slack', { type: 'event_callback', event: { type: 'app_mention' } });
    expect(event.status).toBe(202);
    expect(await runCount()).toBe(1);
  });

  it("answers Meta's GET hub.challenge with the verify token, compared as a secret; a wrong one is 401, GET elsewhere 405", async () => {
    herald = await testApp({ hooks: { mappings: handshakes } });
    const get = (path: string, query: string) => herald!.request(`/hooks/${path}?${query}`);
    const ok = await get('meta', `hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${META_VERIFY}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');

    const wrong = await get('meta', 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ ok: false, error: 'unauthorized' });
    expect((await get('meta', 'hub.mode=subscribe&hub.challenge=1')).status).toBe(401);
    // the verify token admits the handshake only: not a GET that is none
    expect((await get('meta', `hub.mode=unsubscribe&hub.verify_token=${META_VERIFY}`)).status).toBe(400);

    const elsewhere = await get('slack', 'x=1');
    expect(elsewhere.status).toBe(405);
    expect(elsewhere.headers.get('allow')).toBe('POST');

    // a receipt is written once the response is settled
    const answered = await eventually(async () => {
      const receipts = await herald!.request(`/admin/receipts?limit=10`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
      const data = ((await receipts.json()) as { data: { status: number; outcome: string; authMethod: string; mappingId?: string }[] }).data;
      return data.find((r) => r.status === 200);
    });
    expect(answered).toMatchObject({ outcome: 'respond', authMethod: 'verify-token', mappingId: 'meta-verification' });
  });

  it('refuses at start a respond that cannot work, naming the mapping and field', async () => {
    const { loadConfigValue } = await import('../helpers/builtins.js');
    const { resolveMappings } = await import('../../src/mappings/loading/resolve-mappings.js');
    const loaded = await loadConfigValue(
      baseConfig({
        hooks: {
          mappingsDir: '/nonexistent',
          mappings: [
            { id: 'a', match: { path: 'a' }, respond: { when: 'type = ', body: '{{challenge}}' } },
            { id: 'b', match: { path: 'b' }, respond: { when: 'true', waitMs: 100 } },
            { id: 'c', respond: { method: 'GET' } },
            { id: 'd', match: { path: 'd' }, action: 'wake', textTemplate: 'x', respond: { waitMs: 100, body: '{{reply}}' } },
            { id: 'e', match: { path: 'e' }, respond: { body: '{{ reply ' } },
          ],
        },
      }),
      '/tmp/herald.respond.json',
    );
    const error = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() }).then(
      () => undefined,
      (e: { faults: string[] }) => e,
    );
    expect(error?.faults).toEqual([
      expect.stringMatching(/^mapping "a" \(hooks.mappings\[0\]\): respond.when: syntax error/),
      'mapping "b" (hooks.mappings[1]): respond.waitMs: a handshake (when, or method GET) answers at once and starts no run; put waitMs on the mapping that runs',
      'mapping "c" (hooks.mappings[2]): respond.method: GET needs match.path',
      'mapping "d" (hooks.mappings[3]): respond.waitMs: a wake has no reply to wait for',
      expect.stringMatching(/^mapping "e" \(hooks.mappings\[4\]\): respond.body: template error/),
    ]);
  });
});

describe('respond: waiting for the reply', () => {
  const sms = (waitMs: number) => ({
    id: 'sms',
    match: { path: 'sms' },
    messageTemplate: '{{Body}}',
    sessionKey: 'hook:sms:{{From}}',
    channel: 'webhook',
    respond: {
      waitMs,
      contentType: 'application/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><Response><Message>{{reply}}</Message></Response>',
      fallback: { status: 200, body: '<Response/>' },
    },
  });
  const form = { ...hookHeaders(), 'content-type': 'application/x-www-form-urlencoded' };

  it('answers with the reply, escaped for XML, within waitMs; the reply is not delivered again', async () => {
    const model = await startFakeServer(() => ({ body: completion('Shipped <today> & "tracked"') }));
    const channel = await startFakeServer();
    fakes.push(model, channel);
    herald = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/m' } },
      channels: { webhook: { url: `${channel.url}/inbox` } },
      hooks: { mappings: [sms(30_000)] },
    });
    const res = await post('sms', 'From=%2B15555550123&Body=Is+my+order+shipped%3F', form);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(await res.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Message>Shipped &#60;today&#62; &#38; &#34;tracked&#34;</Message></Response>');
    // recorded as any run
    const runs = await herald.request(`/admin/runs?limit=5`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await runs.json()) as { data: { status: string; sessionKey: string }[] }).data).toEqual([expect.objectContaining({ status: 'succeeded', sessionKey: 'hook:sms:+15555550123' })]);
    const deliveries = await herald.request(`/admin/deliveries`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await deliveries.json()) as { data: unknown[] }).data).toEqual([]);
    expect(channel.requests).toEqual([]);

    // nor after a restart: the next start queues only replies a stopped process meant to send
    herald = await herald.restart();
    await herald.gateway.runs.idle();
    const again = await herald.request(`/admin/deliveries`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await again.json()) as { data: unknown[] }).data).toEqual([]);
    expect(channel.requests).toEqual([]);
    const [run] = ((await (await herald.request(`/admin/runs?limit=1`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: { id: string }[] }).data;
    const detail = (await (await herald.request(`/admin/runs/${run!.id}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { delivery: unknown };
    expect(detail.delivery).toMatchObject({ status: 'answered' });
  });

  it('answers the fallback past waitMs, and the reply goes out through the channel as usual', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const model = await startFakeServer(async () => {
      await released;
      return { body: completion('Your order shipped') };
    });
    const channel = await startFakeServer();
    fakes.push(model, channel);
    herald = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/m' } },
      channels: { webhook: { url: `${channel.url}/inbox` } },
      hooks: { mappings: [sms(50)] },
    });
    const res = await post('sms', 'From=%2B15555550123&Body=Where+is+it%3F', form);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<Response/>');
    release();
    const delivered = await eventually(() => channel.requests[0]);
    expect(delivered.json).toMatchObject({ text: 'Your order shipped' });
  });
});
