import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from '../../../src/errors.js';
import { GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { pausedRun, toolCall } from './paused-runs.js';

/**
 * Every error of the admin API carries its catalog code, as /v1 errors carry theirs: each route of
 * the admin OpenAPI document is called wrongly (no token, an unknown id, an empty or broken body)
 * and every error body is compared with the catalog (the code exists, its status is the answer's).
 */
const bearer = { authorization: `Bearer ${GATEWAY_TOKEN}` };

interface ErrorBody {
  ok: false;
  error: string;
  code: keyof typeof errorCatalog;
}

async function errorOf(app: TestApp, path: string, init: RequestInit): Promise<{ status: number; body: ErrorBody } | undefined> {
  const res = await app.request(path, init);
  if (res.status < 400) {
    await res.body?.cancel();
    return undefined;
  }
  return { status: res.status, body: (await res.json()) as ErrorBody };
}

const matchesCatalog = (what: string, { status, body }: { status: number; body: ErrorBody }) => {
  expect(body, what).toMatchObject({ ok: false, error: expect.any(String), code: expect.stringMatching(/^HERALD_/) });
  expect(errorCatalog[body.code]?.status, `${what}: ${body.code} is the catalog's, of status ${status}`).toBe(status);
};

describe('the admin API error bodies', () => {
  it("carry the catalog's code of their status on every route, with and without the token", async () => {
    const app = await testApp();
    const doc = (await (await app.request('/admin/openapi.json', { headers: bearer })).json()) as { paths: Record<string, Record<string, unknown>> };
    const seen = new Set<string>();
    let errors = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      const path = template.replace(/\{[^}]+\}/g, 'nope');
      for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
        const bodies = method === 'GET' || method === 'DELETE' ? [undefined] : ['{}', '{not json'];
        for (const body of bodies) {
          const init = { method, body, headers: { 'content-type': 'application/json' } };
          // the stream answers forever once admitted: only its refusal is read
          const asked = [{ ...init, headers: { ...init.headers } }, ...(path === '/admin/stream' ? [] : [{ ...init, headers: { ...init.headers, ...bearer } }])];
          for (const request of asked) {
            const answer = await errorOf(app, path, request);
            if (!answer) continue;
            matchesCatalog(`${method} ${path} ${body ?? ''}`, answer);
            seen.add(answer.body.code);
            errors++;
          }
        }
      }
    }
    expect(errors).toBeGreaterThan(50);
    // the admin API's usual refusals are among them
    for (const code of ['HERALD_UNAUTHORIZED', 'HERALD_NOT_FOUND', 'HERALD_INVALID_FIELD', 'HERALD_BAD_REQUEST'] as const) expect([...seen]).toContain(code);
    // a path of no route, under /admin, answers so too
    matchesCatalog('an unknown admin path', (await errorOf(app, '/admin/nothing-here', { headers: bearer }))!);
  });

  it("a second decision's 409 says HERALD_APPROVAL_NOT_PENDING, as docs/tools.md names it", async () => {
    const app = await testApp();
    await app.gateway.runs.stop(0);
    const { calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    const decide = () => app.request(`/admin/approvals/${calls[0]!.id}/approve`, { method: 'POST', headers: bearer });
    expect((await decide()).status).toBe(200);
    const again = await decide();
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ ok: false, code: 'HERALD_APPROVAL_NOT_PENDING', error: expect.stringContaining('already approved') });
    expect(fs.readFileSync('docs/tools.md', 'utf8')).toContain('HERALD_APPROVAL_NOT_PENDING');
  });

  it('docs/errors.md says the admin surface carries the code', () => {
    expect(fs.readFileSync('docs/errors.md', 'utf8')).toMatch(/`\/admin`.*"code":"HERALD_APPROVAL_NOT_PENDING"/);
  });
});
