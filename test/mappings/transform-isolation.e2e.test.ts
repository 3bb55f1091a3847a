import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, eventually, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/** a value only the request bodies hold: a log line with it would have logged a body */
const BODY_SECRET = 'isolation-body-secret-42ab';

const dir = tempDir('herald-isolation-');
/** written by a transform once it is running (and stuck) */
const STUCK = path.join(dir, 'stuck');
/** written by the test to let the memory-hungry transform start allocating */
const GO = path.join(dir, 'go');

const files = {
  'transforms/loop.mjs': `import fs from 'node:fs';
export default () => { fs.writeFileSync(${JSON.stringify(STUCK)}, 'loop'); for (;;) {} };`,
  // held in a synchronous wait until the test has measured the others, then allocates without end
  'transforms/hog.mjs': `import fs from 'node:fs';
export default () => {
  fs.writeFileSync(${JSON.stringify(STUCK)}, 'hog');
  while (!fs.existsSync(${JSON.stringify(GO)})) {}
  const held = [];
  for (;;) held.push(new Array(100000).fill(held.length));
};`,
  // a result that cannot be copied back from the worker
  'transforms/unclonable.mjs': `export default () => ({ message: 'x', format: () => 'x' });`,
  'transforms/good.ts': `export default (ctx: { payload: { n: number } }) => ({ message: 'good ' + ctx.payload.n });`,
};

const mappings = [
  { id: 'loop', match: { path: 'loop' }, messageTemplate: 'x', transform: { module: 'loop.mjs' }, deliver: false },
  { id: 'hog', match: { path: 'hog' }, messageTemplate: 'x', transform: { module: 'hog.mjs' }, deliver: false },
  { id: 'unclonable', match: { path: 'unclonable' }, messageTemplate: 'x', transform: { module: 'unclonable.mjs' }, deliver: false },
  { id: 'good', match: { path: 'good' }, messageTemplate: 'x', transform: { module: 'good.ts' }, deliver: false },
  { id: 'plain', match: { path: 'plain' }, messageTemplate: 'plain {{n}}', deliver: false },
];

let herald: TestApp;
beforeAll(async () => {
  herald = await testApp({ hooks: { mappings, transformTimeoutMs: 5000, transformMemoryMb: 64 } }, { dir, files });
});
afterAll(async () => herald?.stop());

async function hook(name: string, body: unknown = { n: 1, secret: BODY_SECRET }) {
  const res = await herald.request(`/hooks/${name}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function healthz() {
  return (await herald.request(`/healthz`)).status;
}

async function chat() {
  const res = await herald.request(`/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Sends the stuck request, waits until its transform runs, then has another client call /healthz,
 * /v1/chat/completions, a hook without a transform and a good transform; each answer is recorded
 * in the order it arrives.
 */
async function whileStuck(name: string, release?: () => void) {
  fs.rmSync(STUCK, { force: true });
  const answered: string[] = [];
  const stuck = hook(name).then((res) => {
    answered.push(name);
    return res;
  });
  await eventually(() => fs.existsSync(STUCK));
  const others = {
    healthz: await healthz(),
    chat: await chat(),
    plain: (await hook('plain')).status,
    good: await hook('good', { n: 2 }),
  };
  answered.push('others');
  release?.();
  return { stuck: await stuck, others, answered };
}

function failureLine(mapping: string) {
  return herald.logs.find((l) => l.msg === 'hook mapping failed' && l.mapping === mapping);
}

// each case waits out a 5 s transform limit, then starts a worker again (a TypeScript transform is compiled in it): on a loaded
// machine that takes more than the default 20 s, which is no fault of the gateway's
describe('transforms in isolation', { timeout: 60_000 }, () => {
  it('a looping transform fails its request (TransformTimeout) while hooks, /v1 and /healthz answer meanwhile', async () => {
    const { stuck, others, answered } = await whileStuck('loop');
    expect(others).toEqual({ healthz: 200, chat: 200, plain: 202, good: { status: 202, body: { ok: true, runId: expect.any(String) } } });
    expect(answered).toEqual(['others', 'loop']);
    expect(stuck).toEqual({ status: 500, body: { ok: false, error: 'hook mapping failed' } });
    expect(failureLine('loop')).toMatchObject({ stage: 'transform', cause: 'TransformTimeout' });
    expect(herald.rawLogs()).not.toContain(BODY_SECRET);
    // the worker was replaced: the next call of a good transform works
    expect((await hook('good')).status).toBe(202);
  });

  it('a transform that exhausts its memory fails its request (TransformMemory), the gateway keeps serving', async () => {
    fs.rmSync(GO, { force: true });
    const { stuck, others, answered } = await whileStuck('hog', () => fs.writeFileSync(GO, 'go'));
    expect(others).toMatchObject({ healthz: 200, chat: 200, plain: 202, good: { status: 202 } });
    expect(answered).toEqual(['others', 'hog']);
    expect(stuck).toEqual({ status: 500, body: { ok: false, error: 'hook mapping failed' } });
    expect(failureLine('hog')).toMatchObject({ stage: 'transform', cause: 'TransformMemory' });
    expect(herald.rawLogs()).not.toContain(BODY_SECRET);
    expect(await healthz()).toBe(200);
    expect((await hook('good')).status).toBe(202);
  });

  it('a result that is not plain data fails its request (TransformError)', async () => {
    expect(await hook('unclonable')).toEqual({ status: 500, body: { ok: false, error: 'hook mapping failed' } });
    expect(failureLine('unclonable')).toMatchObject({ stage: 'transform', cause: 'TransformError' });
    expect((await hook('good')).status).toBe(202);
  });

  it('an admin dry run runs its transform in the pool too: a looping one is stopped while the gateway answers', async () => {
    const dryRun = async (body: unknown) => {
      const res = await herald.request(`/admin/mappings/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { outcome?: Record<string, unknown> } };
    };
    fs.rmSync(STUCK, { force: true });
    const answered: string[] = [];
    const stuck = dryRun({ path: 'loop', payload: { n: 1 } }).then((res) => {
      answered.push('dry run');
      return res;
    });
    await eventually(() => fs.existsSync(STUCK));
    expect(await healthz()).toBe(200);
    answered.push('healthz');
    const looped = await stuck;
    expect(answered).toEqual(['healthz', 'dry run']);
    expect(looped.status).toBe(200);
    expect(looped.body.outcome).toMatchObject({ type: 'error', mappingId: 'loop', status: 500, reason: expect.stringMatching(/timed out/) });
    const draft = { id: 'draft', match: { path: 'draft' }, transform: { module: 'good.ts' }, deliver: false };
    expect((await dryRun({ path: 'draft', payload: { n: 3 }, draft })).body.outcome).toMatchObject({ type: 'action', action: { message: 'good 3' } });
  });
});
