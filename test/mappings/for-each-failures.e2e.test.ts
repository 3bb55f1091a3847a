import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * A `forEach` mapping whose items fail for some and not others: the items that ran ran, and the
 * request's receipt records the failure as a failed mapping's (which items, at which stage, the
 * mapping, the cause without a payload value), its payload kept for replay.
 */
const AMOUNT = 'SECRET-amount-9c41d0';
const MODEL = 'secret/model-e27f';

/** throws on an amount that is not a number, quoting it, from line 4 */
const BROKEN = `export default function orders(ctx) {
  const amount = ctx.payload.orders[0].amount;
  if (typeof amount !== 'number') {
    throw new Error('amount ' + amount + ' is not a number');
  }
  return { message: 'Order of ' + amount };
}
`;
const FIXED = `export default function orders(ctx) {
  return { message: 'Order of ' + String(ctx.payload.orders[0].amount).length + ' characters' };
}
`;

const mapping = {
  id: 'orders-each',
  match: { path: 'orders' },
  forEach: 'orders',
  name: 'Orders',
  model: '{{orders[0].model}}',
  transform: { module: 'orders.mjs' },
  deliver: false,
};
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

async function adminJson(h: TestApp, method: 'GET' | 'POST', route: string): Promise<{ status: number; body: any; text: string }> {
  const res = await h.request(`/admin${route}`, { method, headers: admin });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

function expectNoSecret(text: string, where: string) {
  for (const secret of [AMOUNT, MODEL]) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
}

describe('a forEach mapping that fails for some items and not others', () => {
  it('records which items failed, at which stage, with the mapping and the cause (no payload value); the payload is kept for replay', async () => {
    const h = await testApp({ hooks: { mappings: [mapping] } }, { files: { 'transforms/orders.mjs': BROKEN } });
    const orders = [{ amount: 5 }, { amount: AMOUNT }, { amount: 7 }, { amount: 8, model: MODEL }];
    const res = await h.request('/hooks/orders', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ shop: 'north', orders }) });
    // OpenClaw's answer: the status of the first refusal, the runs that started
    expect(res.status).toBe(500);
    const answer = (await res.json()) as { runIds: string[]; error: string };
    expect(answer).toMatchObject({ ok: false, error: 'hook fan-out incomplete: 2/4 dispatched, 2 failed' });
    expect(answer.runIds).toHaveLength(2);

    const receipt = await eventually(async () => (await adminJson(h, 'GET', '/receipts?mapping=orders-each')).body.data[0]);
    expect(receipt).toMatchObject({ status: 500, errorCode: 'HERALD_MAPPING_FAILED', mappingId: 'orders-each', runId: answer.runIds[0], retainedUntil: expect.any(String) });
    expect(receipt.failure).toEqual({
      stage: 'transform',
      mappingId: 'orders-each',
      cause: '2 of 4 items failed; item 1: Error: amount ‹value› is not a number',
      at: 'orders.mjs:4',
      items: [
        { index: 1, stage: 'transform', cause: 'Error: amount ‹value› is not a number', at: 'orders.mjs:4' },
        { index: 3, stage: 'action', cause: 'model "‹value›" is not a known model (use <provider>/<model> or an alias)' },
      ],
    });
    // listed among the requests whose mapping failed
    expect((await adminJson(h, 'GET', '/receipts?failed=true')).body.data.map((r: { id: string }) => r.id)).toEqual([receipt.id]);
    // the request's page: the failure without a value, the payload for the operator alone
    const shown = await adminJson(h, 'GET', `/receipts/${receipt.id}`);
    const { payload, ...rest } = shown.body;
    expect(rest.failure).toEqual(receipt.failure);
    expectNoSecret(JSON.stringify(rest), `GET /admin/receipts/${receipt.id}`);
    expect(payload.body).toContain(AMOUNT);
    expectNoSecret(h.rawLogs(), 'the log');

    // the transform fixed, the replay runs the items it failed; the one whose model is unknown fails again, recorded as on arrival
    fs.writeFileSync(path.join(h.dir, 'transforms', 'orders.mjs'), FIXED);
    const replayed = await adminJson(h, 'POST', `/receipts/${receipt.id}/replay`);
    expect(replayed.body).toMatchObject({ replayOf: receipt.id, status: 400, errorCode: 'HERALD_INVALID_FIELD', retainedUntil: expect.any(String) });
    expect(replayed.body.failure).toEqual({
      stage: 'action',
      mappingId: 'orders-each',
      cause: '1 of 4 items failed; item 3: model "‹value›" is not a known model (use <provider>/<model> or an alias)',
      items: [{ index: 3, stage: 'action', cause: 'model "‹value›" is not a known model (use <provider>/<model> or an alias)' }],
    });
    expectNoSecret(replayed.text, 'the replay');
    const runs = (await adminJson(h, 'GET', '/runs?limit=50')).body.data.map((r: { message: string }) => r.message).sort();
    expect(runs).toEqual(['Order of 1 characters', 'Order of 1 characters', 'Order of 20 characters', 'Order of 5', 'Order of 7'].sort());
  });
});
