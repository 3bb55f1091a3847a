import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_TOKEN, eventually } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

// Shopify's documented orders/create example: ids are 64-bit integers, sent as JSON numbers
const ORDER = '{"id":820982911946154508,"order_number":1234,"total_price":"199.00","customer":{"id":115310627314723954}}';

const files = {
  'transforms/shopify-order.mjs': `export default ({ payload }) => ({ name: 'Shopify ' + typeof payload.id + ' ' + payload.id + ' ' + typeof payload.order_number });`,
};

describe('hook bodies keep integers beyond 2^53 exact', () => {
  it("Shopify's order_id reaches the message, the session key, the idempotency key and the transform with every digit", async () => {
    herald = await testApp(
      {
        hooks: {
          mappings: [
            {
              id: 'shopify',
              match: { path: 'shopify' },
              messageTemplate: 'Order {{ id }} for customer {{ customer.id }}: https://admin.shopify.com/orders/{{ id }}',
              sessionKey: 'hook:shopify:{{ id }}',
              idempotencyKey: 'order-{{ id }}',
              deliver: false,
              transform: { module: 'shopify-order.mjs' },
            },
          ],
        },
      },
      { files },
    );
    const post = () => herald!.request('/hooks/shopify', { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' }, body: ORDER });
    const res = await post();
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const run = await eventually(() => herald!.gateway.store.runs.get(runId));
    expect(run).toMatchObject({
      message: 'Order 820982911946154508 for customer 115310627314723954: https://admin.shopify.com/orders/820982911946154508',
      sessionKey: 'hook:shopify:820982911946154508',
      name: 'Shopify string 820982911946154508 number',
    });
    // the retry is the same order, by its exact key
    const again = await post();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await herald.request('/hooks/shopify', {
      method: 'POST',
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
      body: ORDER.replace('820982911946154508', '820982911946154509'),
    });
    expect(other.status).toBe(202);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });
});
