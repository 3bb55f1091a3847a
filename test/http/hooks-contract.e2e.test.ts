import { describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp } from './app-fixture.js';
import { validateAction } from '../../src/mappings/hook-action.js';

const post = (body: unknown, headers: Record<string, string> = hookHeaders()) => ({
  method: 'POST',
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('webhook contract (app.request)', () => {
  it('wake answers 200 {ok,mode}, agent 202 {ok,runId}, healthz needs no token', async () => {
    const app = await testApp();
    const wake = await app.request('/hooks/wake', post({ text: 'Deploy finished' }));
    expect(wake.status).toBe(200);
    expect(await wake.json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
    const later = await app.request('/hooks/wake', post({ text: 'Later', mode: 'next-heartbeat' }));
    expect(await later.json()).toEqual({ ok: true, mode: 'next-heartbeat', eventOutcome: 'queued' });
    const agent = await app.request('/hooks/agent', post({ message: 'Summarise', deliver: false }));
    expect(agent.status).toBe(202);
    expect(await agent.json()).toEqual({ ok: true, runId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const health = await app.request('/healthz');
    expect(health.status).toBe(200);
  });

  it("takes OpenClaw's sessionMode: persistent needs a sessionKey the policy allows and continues it, isolated refuses one", async () => {
    const app = await testApp({ hooks: { allowedSessionKeyPrefixes: ['hook:', 'ops:'] } });
    const send = async (body: Record<string, unknown>) => {
      const res = await app.request('/hooks/agent', post({ message: 'Status?', deliver: false, ...body }));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await send({ sessionMode: 'persistent' })).toEqual({ status: 400, body: { ok: false, error: 'sessionKey is required with sessionMode "persistent" (the conversation it continues)' } });
    expect(await send({ sessionMode: 'persistent', sessionKey: 'billing:1' })).toEqual({ status: 400, body: { ok: false, error: 'sessionKey must start with one of: hook:, ops:' } });
    expect(await send({ sessionMode: 'isolated', sessionKey: 'ops:1' })).toEqual({ status: 400, body: { ok: false, error: 'sessionMode "isolated" runs in a fresh session; leave out sessionKey or use "persistent"' } });
    expect(await send({ sessionMode: 'shared' })).toEqual({ status: 400, body: { ok: false, error: 'sessionMode must be one of isolated, persistent' } });
    const first = await send({ sessionMode: 'persistent', sessionKey: 'ops:incidents' });
    const second = await send({ sessionMode: 'persistent', sessionKey: 'ops:incidents' });
    const isolated = await send({ sessionMode: 'isolated' });
    expect([first.status, second.status, isolated.status]).toEqual([202, 202, 202]);
    const runs = await Promise.all([first, second, isolated].map((r) => app.gateway.store.runs.get(r.body.runId as string)));
    expect(runs[0]!.sessionKey).toBe('ops:incidents');
    expect(runs[1]!.sessionKey).toBe('ops:incidents');
    expect(runs[2]!.sessionKey).toMatch(/^hook:/);
  });

  it('refuses a persistent mapping without a sessionKey, and an isolated one with one, at load', async () => {
    const mapping = { id: 'tickets', match: { path: 'tickets' }, messageTemplate: 'x' };
    await expect(testApp({ hooks: { mappings: [{ ...mapping, sessionMode: 'persistent' }] } })).rejects.toThrow(/sessionMode: "persistent" needs a sessionKey/);
    await expect(testApp({ hooks: { mappings: [{ ...mapping, sessionMode: 'isolated', sessionKey: 'hook:t' }] } })).rejects.toThrow(/sessionMode: "isolated" runs in a fresh session/);
  });

  it('refuses an accountId herald has no account for (a 400 naming it), one without a channel, and on a mapping at load', async () => {
    const app = await testApp();
    const res = await app.request('/hooks/agent', post({ message: 'x', deliver: false, channel: 'telegram', accountId: 'work' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ ok: false, error: 'accountId "work" is not an account of channel telegram (channel telegram is not configured)' });
    const last = await app.request('/hooks/agent', post({ message: 'x', deliver: false, accountId: 'work' }));
    expect(await last.json()).toEqual({ ok: false, error: "accountId needs an explicit channel: an account is one of a channel's (channels.<id>.accounts)" });
    // a mapping's transform cannot name one either: the action a mapping resolves never takes it
    expect(() => validateAction({ message: 'x', channel: 'telegram', accountId: 'work' }, 'agent', { config: app.gateway.config, channelNames: ['last', 'telegram'], mappingId: 'm', requiredMessage: () => 'm' }, 'm')).toThrow(
      'accountId is not taken by a mapping (OpenClaw refuses it there too); a direct /hooks/agent request names the account',
    );
    const mapping = { id: 'tickets', match: { path: 'tickets' }, messageTemplate: 'x', accountId: 'work' };
    await expect(testApp({ hooks: { mappings: [mapping] } })).rejects.toThrow(/accountId \(mapping "tickets"\): a mapping does not take accountId \(OpenClaw refuses it there too\)/);
  });

  it('puts X-Request-Id on every response, keeping a sane caller id', async () => {
    const app = await testApp({ hooks: { maxBodyBytes: 100 } });
    const responses = [
      await app.request('/hooks/wake', post({ text: 'a' })),
      await app.request('/hooks/agent', post({ message: 'a' })),
      await app.request('/nowhere'),
      await app.request('/hooks/nothing-mapped', post({})),
      await app.request('/hooks/wake', { method: 'GET' }),
      await app.request('/hooks/wake', post({ text: 'x'.repeat(200) })),
      await app.request('/hooks/wake', post({ text: 'a' }, hookHeaders('wrong-token-0123456789'))),
      await app.request('/hooks/wake', post('{not json')),
      await app.request('/healthz'),
      await app.request('/admin/events'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 202, 404, 404, 405, 413, 401, 400, 200, 401]);
    for (const response of responses) expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.request('/healthz', { headers: { 'x-request-id': 'trace-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42');
    const unsafe = await app.request('/healthz', { headers: { 'x-request-id': 'evil id\twith spaces' } });
    expect(unsafe.headers.get('x-request-id')).not.toContain('evil');
  });

  it('answers 405 with Allow: POST before looking at the token', async () => {
    const app = await testApp();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await app.request('/hooks/wake', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ ok: false, error: 'method not allowed' });
    }
  });

  it('401 {ok:false,error:"unauthorized"} without a token or with a wrong one', async () => {
    const app = await testApp();
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer nope' }, { authorization: `Basic ${HOOK_TOKEN}` }, { 'x-gateway-token': 'nope' }];
    for (const headers of attempts) {
      const res = await app.request('/hooks/wake', post({ text: 'a' }, { 'content-type': 'application/json', ...headers }));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ ok: false, error: 'unauthorized' });
    }
    const query = await app.request('/hooks/wake?token=nope', post({ text: 'a' }, {}));
    expect(query.status).toBe(401);
  });

  it('takes the token from Bearer, then x-gateway-token / x-openclaw-token, then ?token= (deprecated)', async () => {
    const app = await testApp();
    const bearer = await app.request('/hooks/wake', post({ text: 'one' }, { authorization: `Bearer ${HOOK_TOKEN}` }));
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('deprecation')).toBeNull();
    expect((await app.request('/hooks/wake', post({ text: 'two' }, { 'x-gateway-token': HOOK_TOKEN }))).status).toBe(200);
    expect((await app.request('/hooks/wake', post({ text: 'three' }, { 'x-openclaw-token': HOOK_TOKEN }))).status).toBe(200);

    const query = await app.request(`/hooks/wake?token=${HOOK_TOKEN}`, post({ text: 'four' }, {}));
    expect(query.status).toBe(200);
    expect(query.headers.get('deprecation')).toBe('true');
    const warning = app.logs.find((l) => l.level === 40 && String(l.msg).includes('deprecated'));
    expect(warning).toBeDefined();
    expect(JSON.stringify(warning)).not.toContain(HOOK_TOKEN);

    // the first form present decides: a wrong Bearer is not rescued by a right header or query
    const wrongFirst = await app.request(`/hooks/wake?token=${HOOK_TOKEN}`, post({ text: 'five' }, { authorization: 'Bearer wrong', 'x-gateway-token': HOOK_TOKEN }));
    expect(wrongFirst.status).toBe(401);
    const wrongHeader = await app.request(`/hooks/wake?token=${HOOK_TOKEN}`, post({ text: 'six' }, { 'x-gateway-token': 'wrong' }));
    expect(wrongHeader.status).toBe(401);
    // a right Bearer with a stray query token is not a deprecated request
    const both = await app.request('/hooks/wake?token=whatever', post({ text: 'seven' }, { authorization: `Bearer ${HOOK_TOKEN}` }));
    expect(both.status).toBe(200);
    expect(both.headers.get('deprecation')).toBeNull();
  });

  it('refuses an address with 429 and Retry-After for wrong tokens after 20 failed attempts in 60 s; the right token still passes', async () => {
    const app = await testApp();
    for (let i = 0; i < 20; i++) {
      expect((await app.request('/hooks/wake', post({ text: 'a' }, hookHeaders('wrong-token-0123456789')))).status).toBe(401);
    }
    const limited = await app.request('/hooks/wake', post({ text: 'a' }, hookHeaders('wrong-token-0123456789')));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ ok: false });
    expect((await app.request('/hooks/wake', post({ text: 'a' }))).status).toBe(200);
  });

  it('413 on a declared length over hooks.maxBodyBytes, 400 on unreadable JSON or a non-object body', async () => {
    const app = await testApp({ hooks: { maxBodyBytes: 64 } });
    const big = await app.request('/hooks/wake', post({ text: 'x'.repeat(100) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ ok: false, error: 'the body is larger than hooks.maxBodyBytes (64 bytes)' });
    const bad = await app.request('/hooks/wake', post('{"text": '));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: expect.stringContaining('JSON') });
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const res = await app.request('/hooks/agent', post(body));
      expect(res.status).toBe(400);
    }
  });

  it('treats an empty body as {} (and so reports the missing field)', async () => {
    const app = await testApp();
    const res = await app.request('/hooks/wake', { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^text /);
  });

  it('checks /wake fields, naming the field', async () => {
    const app = await testApp();
    const cases: [unknown, string][] = [
      [{}, 'text'],
      [{ text: '   ' }, 'text'],
      [{ text: 42 }, 'text'],
      [{ text: 'ok', mode: 'later' }, 'mode'],
      [{ text: 'ok', mode: 1 }, 'mode'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('/hooks/wake', post(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = (await res.json()) as { ok: boolean; error: string };
      expect(json.ok).toBe(false);
      expect(json.error.startsWith(`${field} `), json.error).toBe(true);
    }
  });

  it('type-checks every /agent field, naming the field', async () => {
    const app = await testApp();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'message'],
      [{ message: '' }, 'message'],
      [{ message: ['a'] }, 'message'],
      [{ message: 'm', name: 7 }, 'name'],
      [{ message: 'm', sessionKey: 7 }, 'sessionKey'],
      [{ message: 'm', sessionKey: '' }, 'sessionKey'],
      [{ message: 'm', sessionKey: 'main' }, 'sessionKey'],
      [{ message: 'm', sessionKey: 'chat:conv_1' }, 'sessionKey'],
      [{ message: 'm', wakeMode: 'soon' }, 'wakeMode'],
      [{ message: 'm', deliver: 'yes' }, 'deliver'],
      [{ message: 'm', channel: 5 }, 'channel'],
      [{ message: 'm', channel: 'carrier-pigeon' }, 'channel'],
      [{ message: 'm', to: 5 }, 'to'],
      [{ message: 'm', model: 5 }, 'model'],
      [{ message: 'm', model: 'nowhere/gpt' }, 'model'],
      // names of Object.prototype are no aliases or providers
      [{ message: 'm', model: '__proto__' }, 'model'],
      [{ message: 'm', model: 'constructor' }, 'model'],
      [{ message: 'm', model: 'constructor/x' }, 'model'],
      [{ message: 'm', model: 'toString/x' }, 'model'],
      [{ message: 'm', timeoutSeconds: 3_000_000 }, 'timeoutSeconds'],
      [{ message: 'm', thinking: 'extreme' }, 'thinking'],
      [{ message: 'm', thinking: true }, 'thinking'],
      [{ message: 'm', timeoutSeconds: '30' }, 'timeoutSeconds'],
      [{ message: 'm', timeoutSeconds: 0 }, 'timeoutSeconds'],
      [{ message: 'm', timeoutSeconds: -5 }, 'timeoutSeconds'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('/hooks/agent', post(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = (await res.json()) as { ok: boolean; error: string };
      expect(json.ok).toBe(false);
      expect(json.error.startsWith(`${field} `) || json.error.startsWith(`${field}:`) || json.error.includes(`${field} "`), json.error).toBe(true);
    }
    const full = await app.request(
      '/hooks/agent',
      post({ message: 'm', name: 'CI', sessionKey: 'ci:1', wakeMode: 'next-heartbeat', deliver: false, channel: 'last', to: '+15550001', model: 'embedded/extractive', thinking: 'low', timeoutSeconds: 30 }),
    );
    expect(full.status).toBe(202);
  });

  it('accepts a model override inside agents.defaults.models (by ref or alias) and 400s one outside it', async () => {
    const app = await testApp({
      models: { aliases: { quick: 'embedded/quick' } },
      agents: { defaults: { models: ['embedded/extractive', 'quick'] } },
    });
    expect((await app.request('/hooks/agent', post({ message: 'm', model: 'embedded/extractive' }))).status).toBe(202);
    expect((await app.request('/hooks/agent', post({ message: 'm', model: 'quick' }))).status).toBe(202);
    expect((await app.request('/hooks/agent', post({ message: 'm', model: 'embedded/quick' }))).status).toBe(202);
    const outside = await app.request('/hooks/agent', post({ message: 'm', model: 'embedded/other' }));
    expect(outside.status).toBe(400);
    expect(await outside.json()).toEqual({ ok: false, error: expect.stringContaining('agents.defaults.models') });
  });

  it('answers 404 for a hook name no mapping takes', async () => {
    const app = await testApp();
    const res = await app.request('/hooks/github', post({ any: 'thing' }));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false });
  });

  it('serves under a custom hooks.path, and not at all when hooks are disabled', async () => {
    const custom = await testApp({ hooks: { path: '/in/' } });
    expect((await custom.request('/in/wake', post({ text: 'a' }))).status).toBe(200);
    expect((await custom.request('/hooks/wake', post({ text: 'a' }))).status).toBe(404);
    const off = await testApp({ hooks: { enabled: false, token: undefined } });
    expect((await off.request('/hooks/wake', post({ text: 'a' }))).status).toBe(404);
  });
});

describe('admin API', () => {
  const admin = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it('shows a run, a session transcript and the main events to the gateway token only', async () => {
    const app = await testApp();
    const accepted = await app.request('/hooks/agent', post({ message: 'Hello there', name: 'Greeter', sessionKey: 'greet:1', deliver: false }));
    const { runId } = (await accepted.json()) as { runId: string };
    await app.gateway.runs.idle();

    for (const token of [HOOK_TOKEN, API_KEY, 'nope']) {
      expect((await app.request(`/admin/runs/${runId}`, admin(token))).status).toBe(401);
    }
    const run = (await (await app.request(`/admin/runs/${runId}`, admin(GATEWAY_TOKEN))).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ id: runId, status: 'succeeded', name: 'Greeter', sessionKey: 'greet:1', message: 'Hello there', error: null });
    for (const key of ['reply', 'createdAt', 'startedAt', 'finishedAt', 'delivery']) expect(run[key]).toBeTruthy();
    // the delivery's shape belongs to the channel outbox; here it only has to be there
    expect(typeof run.delivery).toBe('object');

    const messages = (await (await app.request('/admin/sessions/greet:1/messages', admin(GATEWAY_TOKEN))).json()) as { data: { role: string; content: string; createdAt: string }[] };
    expect(messages.data.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages.data[0]!.content).toBe('Hello there');
    expect(messages.data[1]!.content).toBe(run.reply);
    expect(Date.parse(messages.data[0]!.createdAt)).not.toBeNaN();

    const events = (await (await app.request('/admin/events?session=main', admin(GATEWAY_TOKEN))).json()) as { data: { id: number; text: string; status: string; createdAt: string; untrusted: boolean }[] };
    expect(events.data[0]).toMatchObject({ id: expect.any(Number), text: expect.stringMatching(/^Hook Greeter: /), status: expect.any(String), createdAt: expect.any(String), untrusted: true });

    expect((await app.request('/admin/runs/does-not-exist', admin(GATEWAY_TOKEN))).status).toBe(404);
  });

  it('400s a limit outside 1-1000, and refuses everyone when no gateway.auth.token is set', async () => {
    const app = await testApp();
    for (const limit of ['0', '1001', 'ten', '1.5', '']) {
      const res = await app.request(`/admin/events?session=main&limit=${limit}`, admin(GATEWAY_TOKEN));
      expect(res.status, limit).toBe(400);
      expect(await res.json()).toEqual({ ok: false, error: expect.stringMatching(/^limit /), code: 'HERALD_INVALID_FIELD' });
    }
    expect((await app.request('/admin/events?limit=1000', admin(GATEWAY_TOKEN))).status).toBe(200);
    const closed = await testApp({ gateway: { auth: { token: undefined } } });
    for (const token of [GATEWAY_TOKEN, HOOK_TOKEN, '']) {
      expect((await closed.request('/admin/events', admin(token))).status).toBe(401);
    }
  });
});
