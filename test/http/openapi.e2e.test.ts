import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN } from '../helpers/start-herald.js';
import { servedRoutes } from '../../src/http/server/lazy-routes.js';
import { testApp } from './app-fixture.js';

type Doc = { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };

const mappedWithSchema = {
  id: 'deploys',
  match: { path: 'deploys' },
  action: 'wake',
  schema: { type: 'object', required: ['service'], properties: { service: { type: 'string' } } },
  textTemplate: 'Deployed {{service}}',
};

async function appWithDocument(overrides: Record<string, unknown> = {}) {
  const app = await testApp({ hooks: { mappings: [mappedWithSchema, { id: 'no-schema', match: { path: 'plain' }, action: 'wake', textTemplate: 'x' }] }, ...overrides });
  const response = await app.request('/openapi.json');
  expect(response.status).toBe(200);
  return { app, doc: (await response.json()) as Doc };
}

/** `/v1/agents/:id` -> `/v1/agents/{id}` */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route the app serves, and only those', async () => {
    const { app, doc } = await appWithDocument();
    expect(doc.openapi).toBe('3.1.0');
    const served = new Set(
      (await servedRoutes(app.gateway.app))
        .filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    const hooks = [...documented].filter((d) => d.startsWith('post /hooks/'));
    // every concrete route is documented, and every documented route outside the hooks wildcard is served
    expect([...served].filter((s) => !documented.has(s))).toEqual([]);
    expect([...documented].filter((d) => !served.has(d) && !hooks.includes(d))).toEqual([]);
    // the webhook surface is one wildcard route: each documented hook path must reach a mapping (not 404)
    expect(hooks.sort()).toEqual(['post /hooks/agent', 'post /hooks/deploys', 'post /hooks/wake']);
    for (const hook of hooks) {
      const response = await app.request(hook.slice('post '.length), {
        method: 'POST',
        headers: { Authorization: `Bearer ${HOOK_TOKEN}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(response.status, hook).not.toBe(404);
    }
  });

  it('shows a mapped hook with its schema, and none without one', async () => {
    const { doc } = await appWithDocument();
    const op = doc.paths['/hooks/deploys']!.post as unknown as { requestBody: { content: { 'application/json': { schema: unknown } } } };
    expect(op.requestBody.content['application/json'].schema).toEqual(mappedWithSchema.schema);
    expect(doc.paths['/hooks/plain']).toBeUndefined();
  });

  it("shows a mapping's own answers: a handshake, a GET handshake, a reply awaited up to waitMs and its fallback", async () => {
    const mappings = [
      { id: 'slack-challenge', match: { path: 'slack' }, respond: { when: 'type = "url_verification"', body: '{{challenge}}', contentType: 'text/plain' } },
      { id: 'meta-verification', match: { path: 'meta' }, respond: { method: 'GET', verifyToken: { query: 'hub.verify_token', token: 'vt-123456' }, body: '{{ $query."hub.challenge" }}' } },
      { id: 'sms', match: { path: 'sms' }, messageTemplate: '{{Body}}', respond: { waitMs: 2500, contentType: 'application/xml', body: '<Response><Message>{{reply}}</Message></Response>', fallback: { status: 202, body: '<Response/>' } } },
    ];
    const app = await testApp({ hooks: { mappings } });
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, { description: string; content?: Record<string, unknown> }> }>> };
    expect(doc.paths['/hooks/slack']!.post!.responses['200']!.content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
    expect(doc.paths['/hooks/meta']!.get!.responses['200']!.description).toMatch(/handshake/);
    expect(doc.paths['/hooks/meta']!.post).toBeUndefined();
    const sms = doc.paths['/hooks/sms']!.post!.responses;
    expect(sms['200']).toMatchObject({ description: expect.stringContaining('within 2500 ms'), content: { 'application/xml': { schema: { type: 'string' } } } });
    expect(sms['202']).toMatchObject({ description: expect.stringContaining('fallback'), content: { 'application/xml': { schema: { type: 'string' } } } });
  });

  it('leaves out what is switched off: hooks disabled, metrics disabled', async () => {
    const { doc } = await appWithDocument({ hooks: { enabled: false, token: HOOK_TOKEN }, gateway: { metrics: { enabled: false } } });
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/hooks') || p === '/metrics')).toEqual([]);
  });

  it('describes what the routes really answer (responses validated against the documented schemas)', async () => {
    const { app, doc } = await appWithDocument();
    const ajv = new Ajv2020({ strict: false });
    const check = async (method: string, path: string, docPath: string, init: RequestInit) => {
      const response = await app.request(path, { method, ...init });
      const schema = doc.paths[docPath]![method.toLowerCase()]!.responses[String(response.status)]?.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} answered ${response.status}, which is not documented`).toBeDefined();
      const body = await response.json();
      expect(ajv.validate(schema!, body), `${method} ${path}: ${ajv.errorsText()}`).toBe(true);
      return body as Record<string, unknown>;
    };
    const hook = { Authorization: `Bearer ${HOOK_TOKEN}`, 'Content-Type': 'application/json' };
    const key = { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' };
    const admin = { Authorization: `Bearer ${GATEWAY_TOKEN}` };
    await check('POST', '/hooks/wake', '/hooks/wake', { headers: hook, body: '{"text":"hi"}' });
    await check('POST', '/hooks/wake', '/hooks/wake', { headers: hook, body: '{"mode":"now"}' });
    const { runId } = await check('POST', '/hooks/agent', '/hooks/agent', { headers: hook, body: '{"message":"hi","deliver":false}' });
    const waited = await check('POST', '/hooks/agent', '/hooks/agent', { headers: hook, body: '{"message":"hi","deliver":false,"waitForCompletion":true}' });
    expect(waited.completion).toMatchObject({ status: 'ok', replyDisposition: 'visible' });
    await check('POST', '/hooks/deploys', '/hooks/deploys', { headers: hook, body: '{"service":"api"}' });
    await check('GET', '/v1/agents', '/v1/agents', { headers: key });
    await check('GET', '/v1/agents/main', '/v1/agents/{id}', { headers: key });
    await check('GET', '/v1/agents/nope', '/v1/agents/{id}', { headers: key });
    await check('GET', '/v1/models', '/v1/models', { headers: key });
    await check('POST', '/v1/chat/completions', '/v1/chat/completions', { headers: key, body: '{"model":"main","messages":[{"role":"user","content":"hi"}]}' });
    const form = new FormData();
    form.set('agent_id', 'main');
    form.set('file', new Blob(['# Handbook\n\nHolidays: 25 days.']), 'handbook.md');
    const document = await check('POST', '/v1/knowledge/upload', '/v1/knowledge/upload', { headers: { Authorization: `Bearer ${API_KEY}` }, body: form });
    await check('GET', '/v1/knowledge', '/v1/knowledge', { headers: key });
    await check('GET', `/v1/knowledge/${document.id}`, '/v1/knowledge/{id}', { headers: key });
    await check('DELETE', `/v1/knowledge/${document.id}`, '/v1/knowledge/{id}', { headers: key });
    await check('GET', '/admin/events', '/admin/events', { headers: admin });
    await check('GET', '/admin/events', '/admin/events', {});
    await check('GET', '/admin/deliveries', '/admin/deliveries', { headers: admin });
    const adminJson = { ...admin, 'Content-Type': 'application/json' };
    await check('POST', '/admin/deliveries/retry', '/admin/deliveries/retry', { headers: adminJson, body: '{"channel":"telegram","error":"chat not found","dryRun":true}' });
    await check('POST', '/admin/deliveries/abandon', '/admin/deliveries/abandon', { headers: adminJson, body: '{"since":"2026-01-01T00:00:00Z"}' });
    await check('POST', '/admin/deliveries/retry', '/admin/deliveries/retry', { headers: adminJson, body: '{"until":"soon"}' });
    await check('GET', '/admin/deliveries/no-such-delivery', '/admin/deliveries/{id}', { headers: admin });
    await check('GET', '/admin/sessions/main/messages', '/admin/sessions/{key}/messages', { headers: admin });
    await check('GET', `/admin/runs/${runId}`, '/admin/runs/{id}', { headers: admin });
    await check('GET', '/admin/approvals', '/admin/approvals', { headers: admin });
    await check('GET', '/admin/approvals/tc_nope', '/admin/approvals/{id}', { headers: admin });
    await check('POST', '/admin/approvals/tc_nope/approve', '/admin/approvals/{id}/approve', { headers: admin });
    await check('POST', '/admin/approvals/tc_nope/deny', '/admin/approvals/{id}/deny', { headers: adminJson, body: '{}' });
    await check('GET', '/healthz', '/healthz', {});
    await check('GET', '/readyz', '/readyz', {});
  });
});
