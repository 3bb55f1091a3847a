import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../cli/capture-io.js';
import { main } from '../helpers/builtins.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';

/** values only the request bodies hold: seen anywhere but the payload kept for replay, a value leaked */
const AMOUNT = 'SECRET-amount-7f3a9c';
const CODE = 'secret-code-51d2e8';
const COUNT = 'SECRET-count-0b44aa';
const SECRETS = [AMOUNT, CODE, COUNT, AMOUNT.toUpperCase(), CODE.toUpperCase()];

/** throws on a field of the payload, quoting its value, from line 4 */
const BROKEN = `export default function orders(ctx) {
  const amount = ctx.payload.order.amount;
  if (typeof amount !== 'number') {
    throw new Error('amount ' + amount + ' (' + String(amount).toUpperCase() + ') is not a number');
  }
  return { message: 'Order of ' + amount };
}
`;
const FIXED = `export default function orders(ctx) {
  return { message: 'Order received (amount given as ' + typeof ctx.payload.order.amount + ')' };
}
`;

/** TypeScript (compiled by tsx in the worker) and a helper beside it: the line named is the source's, in the file that threw */
const TYPED = `import { mustBeNumber } from './lib/checks.mjs';

interface Order { amount: unknown }
export default function typed(ctx: { payload: { order: Order; total: unknown } }) {
  mustBeNumber('amount', ctx.payload.order.amount);
  if (typeof ctx.payload.total !== 'number') throw new TypeError('total is not a number');
  return { message: 'ok' };
}
`;
const CHECKS = `export function mustBeNumber(field, value) {
  if (typeof value !== 'number') throw new RangeError(field + ' must be a number, got ' + JSON.stringify(value));
}
`;

/** a forEach mapping's transform: an item whose amount is not a number fails, the others run */
const EACH = `export default function each(ctx) {
  const { amount } = ctx.payload.orders[0];
  if (typeof amount !== 'number') throw new Error('amount ' + amount + ' is not a number');
  return { message: 'Order of ' + amount };
}
`;

const mappings = [
  { id: 'orders', match: { path: 'orders' }, name: 'Orders', transform: { module: 'orders.mjs' }, deliver: false },
  // a JSONata cast error quotes the value it could not cast (upper-cased first: a value the payload does not hold as such)
  { id: 'codes', match: { path: 'codes' }, name: 'Codes', messageTemplate: 'Code {{ $number($uppercase(code)) }}', deliver: false },
  { id: 'typed', match: { path: 'typed' }, name: 'Typed', transform: { module: 'typed.ts' }, deliver: false },
  { id: 'batch', match: { path: 'batch' }, name: 'Batch', forEach: 'orders', transform: { module: 'each.mjs' }, deliver: false },
  { id: 'counts', match: { path: 'counts' }, name: 'Counts', messageTemplate: 'Count {{ count }}', deliver: false, schema: { type: 'object', required: ['count'], properties: { count: { type: 'number' } } } },
];

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
let herald: RunningHerald;

beforeAll(async () => {
  herald = await startHerald(baseConfig({ hooks: { mappings } }), { files: { 'transforms/orders.mjs': BROKEN, 'transforms/typed.ts': TYPED, 'transforms/lib/checks.mjs': CHECKS, 'transforms/each.mjs': EACH } });
});
afterAll(async () => herald?.stop());

async function hook(name: string, body: unknown) {
  const res = await fetch(`${herald.url}/hooks/${name}`, { method: 'POST', headers: { ...hookHeaders(), 'x-shop': 'north' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

async function adminJson(method: 'GET' | 'POST', route: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${herald.url}/admin${route}`, { method, headers: admin });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

async function receiptOf(mapping: string) {
  return eventually(async () => (await adminJson('GET', `/receipts?mapping=${mapping}`)).body.data[0]);
}

/** `herald requests …` against the running gateway, as an operator types it */
async function requests(...args: string[]) {
  const io = captureIo();
  const code = await main(['requests', ...args, '--config', herald.configFile, '--url', herald.url], io.io);
  return { code, out: io.out(), err: io.err() };
}

function expectNoSecret(text: string, where: string) {
  for (const secret of SECRETS) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
}

describe('a request whose mapping failed', () => {
  it('records the stage, the mapping and the cause (a transform\'s file:line), never a payload value, and keeps the payload for replay', async () => {
    const transform = await hook('orders', { order: { amount: AMOUNT } });
    const template = await hook('codes', { code: CODE });
    const schema = await hook('counts', { count: COUNT });
    expect([transform.status, template.status, schema.status]).toEqual([500, 500, 400]);

    const orders = await receiptOf('orders');
    expect(orders).toMatchObject({ status: 500, errorCode: 'HERALD_MAPPING_FAILED', mappingId: 'orders', retainedUntil: expect.any(String) });
    expect(orders.failure).toEqual({ stage: 'transform', mappingId: 'orders', cause: 'Error: amount ‹value› (‹value›) is not a number', at: 'orders.mjs:4' });

    const codes = await receiptOf('codes');
    expect(codes.failure).toEqual({ stage: 'template', mappingId: 'codes', cause: 'Unable to cast value to a number: "‹value›" (at 8)' });

    // the schema refused it before the mapping's step was told: the failure names the mapping
    const counts = await receiptOf('counts');
    expect(counts).toMatchObject({ status: 400, errorCode: 'HERALD_SCHEMA_MISMATCH', mappingId: 'counts', retainedUntil: expect.any(String) });
    expect(counts.failure).toEqual({ stage: 'schema', mappingId: 'counts', cause: 'payload does not match the mapping schema: /count must be number' });

    // no value in the list, the receipts, the callers' answers, the logs; the payload is kept, for the operator alone
    expectNoSecret((await adminJson('GET', '/receipts')).text, 'GET /admin/receipts');
    for (const r of [orders, codes, counts]) {
      const { body } = await adminJson('GET', `/receipts/${r.id}`);
      const { payload, ...receipt } = body;
      expectNoSecret(JSON.stringify(receipt), `GET /admin/receipts/${r.id}`);
      expect(payload.body).toContain([AMOUNT, CODE, COUNT][[orders, codes, counts].indexOf(r)]);
      expect(payload.headers['x-shop']).toBe('north');
      expect(payload.headers).not.toHaveProperty('authorization');
    }
    expectNoSecret(transform.text + template.text + schema.text, 'the answers');
    expectNoSecret(herald.rawLogs(), 'the log');
    // and the command line shows the same
    const shown = await requests('show', orders.id);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`${orders.id}  500 error  orders  mapping orders\n  transform of orders failed: Error: amount ‹value› (‹value›) is not a number (orders.mjs:4)\n  payload kept until `);
    expectNoSecret(shown.out, 'herald requests show');
    // the log names the transform's line too
    expect(herald.logs.find((l) => l.msg === 'hook mapping failed' && l.mapping === 'orders')).toMatchObject({ stage: 'transform', at: 'orders.mjs:4' });
  });

  it('names the line of a TypeScript transform, and of the helper it imports when the helper threw', async () => {
    expect((await hook('typed', { order: { amount: AMOUNT }, total: 1 })).status).toBe(500);
    const helper = await receiptOf('typed');
    expect(helper.failure).toEqual({ stage: 'transform', mappingId: 'typed', cause: 'RangeError: amount must be a number, got "‹value›"', at: 'lib/checks.mjs:2' });
    expect((await hook('typed', { order: { amount: 1 }, total: AMOUNT })).status).toBe(500);
    const own = await eventually(async () => {
      const [newest] = (await adminJson('GET', '/receipts?mapping=typed')).body.data;
      return newest.id !== helper.id && newest;
    });
    expect(own.failure).toEqual({ stage: 'transform', mappingId: 'typed', cause: 'TypeError: total is not a number', at: 'typed.ts:6' });
  });

  it('is replayed after its transform is fixed: the action happens now, on a receipt marked as the operator\'s replay', async () => {
    const orders = await receiptOf('orders');
    // still broken: the replay fails the same way, recorded as on arrival
    const again = await adminJson('POST', `/receipts/${orders.id}/replay`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ replayOf: orders.id, authMethod: 'operator', status: 500, failure: { stage: 'transform', at: 'orders.mjs:4' } });
    expectNoSecret(again.text, 'the failed replay');

    // the template is not fixed: the command line says it failed again, and exits 1
    const codes = await receiptOf('codes');
    const replayedCodes = await requests('replay', codes.id);
    expect(replayedCodes).toMatchObject({ code: 1, out: expect.stringContaining(`500 error  codes  mapping codes  replay of ${codes.id}\n  template of codes failed: Unable to cast value to a number: "‹value›" (at 8)`) });
    expectNoSecret(replayedCodes.out, 'herald requests replay');

    fs.writeFileSync(path.join(herald.dir, 'transforms/orders.mjs'), FIXED);
    const replay = await adminJson('POST', `/receipts/${orders.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ replayOf: orders.id, authMethod: 'operator', status: 202, outcome: 'agent', mappingId: 'orders', failure: null, runId: expect.any(String) });
    const run = await eventually(async () => {
      const { body } = await adminJson('GET', `/runs/${replay.body.runId}`);
      return body.status === 'succeeded' && body;
    });
    expect(run.message).toContain('Order received (amount given as string)');
    const detail = (await adminJson('GET', `/receipts/${orders.id}`)).body;
    expect(detail.replays.map((r: any) => r.id)).toEqual(expect.arrayContaining([again.body.id, replay.body.id]));
    expectNoSecret(herald.rawLogs(), 'the log');
  });

  it('is listed by `herald requests list`: --failed shows where each failed, --mapping and --limit narrow, --json gives the receipts', async () => {
    const failedList = await requests('list', '--failed');
    expect(failedList.code).toBe(0);
    const [header, ...rows] = failedList.out.trimEnd().split('\n');
    expect(header).toMatch(/^TIME +STATUS +PATH +MAPPING +RESULT +ID$/);
    const { body: failedReceipts } = await adminJson('GET', '/receipts?failed=true');
    expect(rows).toHaveLength(failedReceipts.data.length);
    for (const [i, r] of failedReceipts.data.entries()) {
      expect(rows[i]).toMatch(new RegExp(`^${r.receivedAt} +${r.status} +${r.path} +${r.mappingId} +${r.failure.stage} failed: .+  ${r.id}$`));
    }
    expect(failedList.out).toContain('transform failed: Error: amount ‹value› (‹value›) is not a number');
    expect(failedList.out).toContain('schema failed: payload does not match the mapping schema: /count must be number');
    expectNoSecret(failedList.out, 'herald requests list --failed');

    // the newest request of orders is the replay that went through: its outcome, not a failure
    const [newest] = (await adminJson('GET', '/receipts?mapping=orders&limit=1')).body.data;
    const one = await requests('list', '--mapping', 'orders', '--limit', '1');
    expect(one.code).toBe(0);
    expect(one.out.trimEnd().split('\n')[1]).toMatch(new RegExp(`^${newest.receivedAt} +202 +orders +orders +agent +${newest.id}$`));
    expect(one.out.trimEnd().split('\n')).toHaveLength(2);

    const asJson = await requests('list', '--failed', '--mapping', 'codes', '--json');
    expect(asJson.code).toBe(0);
    const listed = JSON.parse(asJson.out);
    expect(listed.length).toBeGreaterThan(0);
    for (const r of listed) expect(r).toMatchObject({ mappingId: 'codes', failure: { stage: 'template' } });

    expect(await requests('list', '--mapping', 'nothing-here')).toMatchObject({ code: 0, out: 'no requests\n' });
    expect(await requests('list', '--limit', '0')).toMatchObject({ code: 2, err: expect.stringContaining('--limit must be an integer from 1 to 1000 (got "0")') });
  });

  it('keeps the payload only as long as the retention says: past it, the failure stays and the replay is refused', async () => {
    const counts = await receiptOf('counts');
    await herald.gateway.store.receipts.prune({ now: Date.parse(counts.retainedUntil), maxTotalBytes: 67108864, receiptsBefore: 0 });
    const detail = (await adminJson('GET', `/receipts/${counts.id}`)).body;
    expect(detail).toMatchObject({ payload: null, retainedUntil: null, failure: { stage: 'schema', mappingId: 'counts' } });
    expect((await adminJson('POST', `/receipts/${counts.id}/replay`)).status).toBe(409);
  });

  it("of a forEach mapping that failed for some items is printed by `herald requests show` with each failed item", async () => {
    expect((await hook('batch', { orders: [{ amount: AMOUNT }, { amount: 2 }, { amount: COUNT }] })).status).toBe(500);
    const batch = await receiptOf('batch');
    const shown = await requests('show', batch.id);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(
      [
        '  transform of batch failed: 2 of 3 items failed; item 0: Error: amount ‹value› is not a number (each.mjs:3)',
        '    item 0: transform failed: Error: amount ‹value› is not a number (each.mjs:3)',
        '    item 2: transform failed: Error: amount ‹value› is not a number (each.mjs:3)',
        '  payload kept until ',
      ].join('\n'),
    );
    expectNoSecret(shown.out, 'herald requests show');
  });
});
