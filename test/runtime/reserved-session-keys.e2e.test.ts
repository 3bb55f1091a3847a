import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { API_KEY, baseConfig, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp } from '../http/app-fixture.js';

const post = (body: unknown, headers: Record<string, string> = hookHeaders()) => ({ method: 'POST', headers, body: JSON.stringify(body) });

/**
 * `response:<id>` names a Responses API response (its stored record and conversation): a hook
 * run there would pass its outside text off as that response's exchange, under its id, in the
 * operator's session view. Refused like `main` and `chat:`: 400 naming the field, nothing queued.
 */
describe('hook session keys reserved for the Responses API', () => {
  it('refuses response:… from a request body and from a mapping template, queueing nothing', async () => {
    const app = await testApp({
      hooks: { mappings: [{ id: 'by-thread', match: { path: 'thread' }, messageTemplate: '{{ text }}', sessionKey: 'response:{{ thread }}', deliver: false }] },
    });
    // a real response first: its id is the key a hook would aim at
    const created = await app.request('/v1/responses', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'main', input: 'hello' }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };

    for (const res of [
      await app.request('/hooks/agent', post({ message: 'm', sessionKey: `response:${id}`, deliver: false })),
      await app.request('/hooks/thread', post({ text: 'm', thread: id })),
    ]) {
      expect(res.status).toBe(400);
      const json = (await res.json()) as { ok: boolean; error: string };
      expect(json).toEqual({ ok: false, error: expect.stringMatching(/^sessionKey .*"response:"/) });
    }
    expect(await app.gateway.store.browse.runs({ limit: 10 })).toHaveLength(0);
    expect(await app.gateway.store.sessions.exists(`response:${id}`)).toBe(false);

    // the prefix only: a key that merely contains it is a hook session like any other
    const ok = await app.request('/hooks/agent', post({ message: 'm', sessionKey: `hook:response:${id}`, deliver: false }));
    expect(ok.status).toBe(202);
  });

  it('refuses a response:… hooks.defaultSessionKey at start', async () => {
    await expect(loadConfigValue(baseConfig({ hooks: { defaultSessionKey: 'response:shared' } }), path.join(tempDir(), 'herald.json'))).rejects.toThrow(
      /hooks\.defaultSessionKey: must not be .*"response:"/,
    );
  });
});
