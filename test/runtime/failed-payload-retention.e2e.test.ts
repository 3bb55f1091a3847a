import { describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const schema = { type: 'object', required: ['n'], properties: { n: { type: 'number' } } };
const mappings = [
  { id: 'counts', match: { path: 'counts' }, messageTemplate: 'n {{ n }}', deliver: false, schema },
  { id: 'private', match: { path: 'private' }, messageTemplate: 'n {{ n }}', deliver: false, schema, retainPayloads: false },
];

async function failedReceipt(app: TestApp, path: string) {
  const res = await app.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ n: 'not a number' }) });
  expect(res.status).toBe(400);
  return eventually(async () => ((await (await app.request(`/admin/receipts?path=${path}`, { headers: admin })).json()) as any).data[0]);
}

describe('the payload of a failed request', () => {
  it('is kept by default, within the retention, unless its mapping says retainPayloads: false; a request that went well is not', async () => {
    const app = await testApp({ hooks: { mappings, retention: { payloadTtlHours: 2, maxPayloadBytes: 64 } } });
    const kept = await failedReceipt(app, 'counts');
    expect(kept.failure).toMatchObject({ stage: 'schema', mappingId: 'counts' });
    expect(Date.parse(kept.retainedUntil) - Date.parse(kept.receivedAt)).toBe(2 * 3_600_000);
    expect(await app.gateway.store.receipts.payload(kept.id, Date.now())).toBeDefined();

    const notKept = await failedReceipt(app, 'private');
    expect(notKept).toMatchObject({ failure: { stage: 'schema', mappingId: 'private' }, retainedUntil: null });

    // over hooks.retention.maxPayloadBytes: the failure is recorded, the body is not kept
    const big = await app.request('/hooks/counts', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ n: 'x'.repeat(100) }) });
    expect(big.status).toBe(400);
    const [tooBig] = await eventually(async () => {
      const rows = ((await (await app.request('/admin/receipts?path=counts', { headers: admin })).json()) as any).data;
      return rows.length === 2 && rows;
    });
    expect(tooBig).toMatchObject({ failure: { stage: 'schema' }, retainedUntil: null });

    const ok = await app.request('/hooks/counts', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ n: 1 }) });
    expect(ok.status).toBe(202);
    const [done] = await eventually(async () => {
      const rows = ((await (await app.request('/admin/receipts?path=counts', { headers: admin })).json()) as any).data;
      return rows.length === 3 && rows;
    });
    expect(done).toMatchObject({ status: 202, failure: null, retainedUntil: null });
  });

  it('is not kept with hooks.retainFailedPayloads: false', async () => {
    const app = await testApp({ hooks: { mappings, retainFailedPayloads: false } });
    const receipt = await failedReceipt(app, 'counts');
    expect(receipt).toMatchObject({ failure: { stage: 'schema', mappingId: 'counts' }, retainedUntil: null });
  });
});

describe("a mapping's retainPayloads: { sample, days }", () => {
  const sampled = (sample: number) => [{ id: 'orders', match: { path: 'orders' }, messageTemplate: 'n {{ n }}', deliver: false, schema, retainPayloads: { sample, days: 14 } }];
  const send = (app: TestApp, n: unknown) => app.request('/hooks/orders', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ n }) });
  const receipts = (app: TestApp, count: number) =>
    eventually(async () => {
      const rows = ((await (await app.request('/admin/receipts?path=orders', { headers: admin })).json()) as any).data;
      return rows.length === count && rows;
    });

  it('sample 1: every successful request kept for its days, then pruned by age (the boolean form is the describe above)', async () => {
    const app = await testApp({ hooks: { mappings: sampled(1) } });
    expect((await send(app, 1)).status).toBe(202);
    const [kept] = await receipts(app, 1);
    expect(Date.parse(kept.retainedUntil) - Date.parse(kept.receivedAt)).toBe(14 * 86_400_000);
    expect(await app.gateway.store.receipts.payload(kept.id, Date.now())).toBeDefined();
    // the retention's pruning, 15 days on: the payload is gone, the receipt stays
    const pruned = await app.gateway.store.receipts.prune({ now: Date.now() + 15 * 86_400_000, maxTotalBytes: 1 << 30, receiptsBefore: 0 });
    expect(pruned.payloads).toBe(1);
    expect(await app.gateway.store.receipts.payload(kept.id, Date.now())).toBeUndefined();
  });

  it('sample 0: no successful request kept; a failed one still is, for the mapping\'s days', async () => {
    const app = await testApp({ hooks: { mappings: sampled(0) } });
    expect((await send(app, 1)).status).toBe(202);
    expect((await send(app, 'not a number')).status).toBe(400);
    const [failed, ok] = await receipts(app, 2);
    expect(ok).toMatchObject({ status: 202, retainedUntil: null });
    expect(failed.failure).toMatchObject({ stage: 'schema' });
    expect(Date.parse(failed.retainedUntil) - Date.parse(failed.receivedAt)).toBe(14 * 86_400_000);
  });

  it('a sample out of 0..1 refuses the start, naming the field', async () => {
    await expect(testApp({ hooks: { mappings: sampled(2) } })).rejects.toThrow(/retainPayloads/);
  });
});
