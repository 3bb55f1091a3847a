import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/** a value no part of herald would write by itself: if a log holds it, a payload value reached the log */
const MARKER = 'PAYLOAD-MARKER-5e1d';

const mappings = [
  { id: 'typed', match: { path: 'typed' }, action: 'wake', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }, textTemplate: 'n={{n}}' },
  { id: 'cast', match: { path: 'cast' }, action: 'wake', textTemplate: 'total {{ $number(amount) + 1 }}' },
  { id: 'throws', match: { path: 'throws' }, messageTemplate: 'x', transform: { module: 'echo-throw.mjs' } },
  { id: 'keyed', match: { path: 'keyed' }, sessionKey: 'hook:repo:{{repo}}', messageTemplate: 'about {{repo}}', deliver: false },
  { id: 'unknown-model', match: { path: 'unknown-model' }, messageTemplate: 'hi', model: '{{model}}', deliver: false },
];

const files = { 'transforms/echo-throw.mjs': `export default (ctx) => { throw new Error('cannot handle ' + JSON.stringify(ctx.payload)); };` };

async function send(herald: TestApp, path: string, body: string, headers: Record<string, string> = hookHeaders()) {
  const res = await herald.request(`${path}`, { method: 'POST', headers, body });
  await res.arrayBuffer();
  return res.status;
}

describe('no payload value reaches the logs (by default)', () => {
  let herald: TestApp;
  beforeAll(async () => {
    herald = await testApp({ hooks: { mappings } }, { files });
  });
  afterAll(async () => herald?.stop());

  it('through every failure path of hooks, chat and uploads', async () => {
    const m = MARKER;
    const statuses: [string, number, number][] = [];
    const check = async (label: string, expected: number, status: Promise<number>) => statuses.push([label, expected, await status]);
    await check('bad JSON', 400, send(herald, '/hooks/wake', `{"text":"${m}`));
    await check('wake mode', 400, send(herald, '/hooks/wake', JSON.stringify({ text: m, mode: m })));
    await check('wake text type', 400, send(herald, '/hooks/wake', JSON.stringify({ text: { m } })));
    await check('agent channel', 400, send(herald, '/hooks/agent', JSON.stringify({ message: m, channel: m })));
    await check('agent model', 400, send(herald, '/hooks/agent', JSON.stringify({ message: m, model: `nope/${m}` })));
    await check('agent timeout', 400, send(herald, '/hooks/agent', JSON.stringify({ message: m, timeoutSeconds: m })));
    await check('schema', 400, send(herald, '/hooks/typed', JSON.stringify({ n: m })));
    await check('template cast', 500, send(herald, '/hooks/cast', JSON.stringify({ amount: m })));
    await check('transform throws', 500, send(herald, '/hooks/throws', JSON.stringify({ secret: m })));
    await check('mapped model', 400, send(herald, '/hooks/unknown-model', JSON.stringify({ model: m })));
    await check('no mapping', 404, send(herald, '/hooks/nowhere', JSON.stringify({ m })));
    await check('wrong token', 401, send(herald, '/hooks/wake', JSON.stringify({ text: m }), hookHeaders(`${m}-token-0123456789`)));
    const keyed = await herald.request(`/hooks/keyed`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ repo: `owner/${m}` }) });
    const { runId } = (await keyed.json()) as { runId: string };
    await eventually(async () => ['succeeded', 'failed'].includes((await herald.gateway.store.runs.get(runId))?.status ?? ''));

    const v1 = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    await check('chat bad JSON', 400, send(herald, '/v1/chat/completions', `{"model":"${m}`, v1));
    await check('chat unknown agent', 404, send(herald, '/v1/chat/completions', JSON.stringify({ model: m, messages: [{ role: 'user', content: m }] }), v1));
    await check('chat bad role', 400, send(herald, '/v1/chat/completions', JSON.stringify({ model: 'main', messages: [{ role: m, content: m }] }), v1));
    await check('chat bad key', 401, send(herald, '/v1/chat/completions', '{}', { ...v1, authorization: `Bearer ${m}-0123456789abcdef` }));
    const upload = async (fields: Record<string, string>, content: Uint8Array | string, filename: string) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([content]), filename);
      const res = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
      await res.arrayBuffer();
      return res.status;
    };
    await check('upload binary', 415, upload({ agent_id: 'main' }, new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...Buffer.from(m)]), `${m}.txt`));
    await check('upload metadata', 400, upload({ agent_id: 'main', metadata: `{"${m}":` }, 'text', 'a.txt'));
    await check('upload agent', 404, upload({ agent_id: m }, 'text', 'a.txt'));
    await check('upload fake pdf', 415, upload({ agent_id: 'main' }, m, `${m}.pdf`));
    await check('upload bad JSON', 400, upload({ agent_id: 'main', chunk_size: m }, m, 'a.json'));

    expect(statuses.filter(([, expected, got]) => expected !== got)).toEqual([]);
    expect(herald.logs.filter((l) => l.msg === 'hook mapping failed').length).toBe(2);
    expect(herald.logs.some((l) => l.msg === 'run finished' || l.msg === 'run failed')).toBe(true);
    const raw = herald.rawLogs();
    const leaks = raw.split('\n').filter((line) => line.includes(m));
    expect(leaks).toEqual([]);
    expect((await herald.request(`/healthz`)).status).toBe(200);
  });
});

describe('gateway.log.verboseErrors', () => {
  it('adds the error message and the session key, for debugging', async () => {
    const herald = await testApp({ gateway: { log: { verboseErrors: true } }, hooks: { mappings } }, { files });
    try {
      expect(await send(herald, '/hooks/cast', JSON.stringify({ amount: MARKER }))).toBe(500);
      const failure = herald.logs.find((l) => l.msg === 'hook mapping failed') as { err?: { message?: string } } | undefined;
      expect(failure?.err?.message).toContain(MARKER);
      const res = await herald.request(`/hooks/keyed`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ repo: 'owner/visible' }) });
      expect(res.status).toBe(202);
      await eventually(() => herald.logs.find((l) => l.msg === 'run finished' && l.sessionKey === 'hook:repo:owner/visible'));
    } finally {
      await herald.stop();
    }
  });
});
