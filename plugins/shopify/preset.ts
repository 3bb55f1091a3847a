import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the topics an agent sees unless `events` says otherwise (X-Shopify-Topic) */
export const SHOPIFY_DEFAULT_EVENTS = ['orders/create', 'orders/cancelled', 'refunds/create', 'customers/create'];

/**
 * Shopify webhooks (https://shopify.dev/docs/apps/build/webhooks): routed by the X-Shopify-Topic
 * header, one session per order (a refund joins its order) or customer; topics not in `events`
 * answered 204. X-Shopify-Webhook-Id is the same on a retry: it is the key.
 *
 * Shopify Events (https://shopify.dev/docs/apps/build/events/delivery-structure) come to the same
 * path with unprefixed headers (`Shopify-Topic`, the resource name such as `Product`;
 * `Shopify-Action`, `Shopify-Event-Id`, `Shopify-Resource-Id`, ...) and a body of `topic`,
 * `action`, `handle` and `fields_changed`: a run per resource. An Events subscription already
 * names its topic, actions and field triggers at Shopify (shopify.app.toml), so `events` (webhook
 * topics) does not filter them. Their key is Shopify-Webhook-Id, else Shopify-Event-Id
 * (https://shopify.dev/docs/apps/build/events/verify-deliveries).
 */
export const shopifyPreset = definePreset({
  path: 'shopify',
  verifies: "X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the body with `secret` (the app's client secret, or the store's webhook signing key)",
  summary: 'Shopify orders (created, cancelled), refunds and new customers become agent runs, one session per order or customer.',
  docs: 'https://shopify.dev/docs/apps/build/webhooks/verify-deliveries',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? SHOPIFY_DEFAULT_EVENTS;
    const on = presetRoutes({
      prefix: 'shopify',
      path: o.path,
      auth: { type: 'shopify', secret: o.secret! },
      idempotencyKey: '{{ headers.x-shopify-webhook-id ? headers.x-shopify-webhook-id : headers.shopify-webhook-id ? headers.shopify-webhook-id : headers.shopify-event-id }}',
    });
    // an Events delivery: its unprefixed topic header (webhooks send only X-Shopify-Topic)
    const isEvents = '$exists(headers.shopify-topic)';
    const resource = 'headers.shopify-resource-id';
    // fields_changed: {added, updated, removed} since Shopify's 2026-09 change, a flat list before it
    const changed = (kind: string) => `($f := fields_changed.${kind}; $count($f) > 0 ? "\\n${kind[0]!.toUpperCase()}${kind.slice(1)}: " & $join($f, ", ") : "")`;
    const topic = 'headers.x-shopify-topic';
    const admin = 'https://{{headers.x-shopify-shop-domain}}/admin';
    // what was paid back: the refund's successful refund transactions (each with its currency), else
    // its line items' subtotals (https://shopify.dev/docs/api/admin-rest/latest/resources/refund)
    const refundTotal = [
      '($paid := transactions[kind = "refund" and status = "success"];',
      ' $items := refund_line_items[subtotal_set.shop_money.amount];',
      ' $count($paid) > 0 ? ", " & $formatNumber($sum($paid.$number(amount)), "#,##0.00") & " " & $paid[0].currency & " refunded"',
      ' : $count($items) > 0 ? ", " & $formatNumber($sum($items.$number(subtotal_set.shop_money.amount)), "#,##0.00") & " " & $items[0].subtotal_set.shop_money.currency_code & " in items"',
      ' : "")',
    ].join('');
    return [
      on('events', isEvents, {
        name: 'Shopify {{ headers.shopify-topic }} {{ headers.shopify-action ? headers.shopify-action : action }}',
        sessionKey: `hook:shopify:{{ $lowercase(headers.shopify-topic) }}:{{ ${resource} ? ${resource} : headers.shopify-event-id }}`,
        messageTemplate: [
          `Shopify Events: {{ headers.shopify-topic }} {{ headers.shopify-action ? headers.shopify-action : action }}{{ headers.shopify-shop-domain ? " on " & headers.shopify-shop-domain : "" }}{{ ${resource} ? " (" & ${resource} & ")" : "" }}{{ handle ? ", subscription " & handle : "" }}`,
          `{{ $type(fields_changed) = "array" and $count(fields_changed) > 0 ? "\\nChanged: " & $join(fields_changed, ", ") : "" }}{{ ${changed('added')} }}{{ ${changed('updated')} }}{{ ${changed('removed')} }}`,
          '{{ data ? "\\nData: " & $string(data) : "" }}',
        ].join(''),
      }),
      on('skip', notListed(topic, events), { action: 'skip' }),
      on('order', `${topic} in ["orders/create", "orders/cancelled", "orders/paid", "orders/fulfilled", "orders/updated"]`, {
        name: 'Shopify order {{name}}',
        sessionKey: 'hook:shopify:order:{{id}}',
        messageTemplate: messageLines([
          'Shopify {{headers.x-shopify-topic}} on {{headers.x-shopify-shop-domain}}: order {{ name ? name : id }} by {{ ($n := $join([customer.first_name, customer.last_name][$type($) = "string" and $ != ""], " "); $n ? $n : "a guest") }} ({{ email ? email : "no email" }}){{ total_price ? ", " & total_price & (currency ? " " & currency : "") : "" }}{{ financial_status ? ", " & financial_status : "" }}{{ fulfillment_status ? ", " & fulfillment_status : "" }}{{ cancel_reason ? ", cancelled: " & cancel_reason : "" }}',
          '{{ $join(line_items.("- " & quantity & " x " & (title ? title : name) & (variant_title ? " (" & variant_title & ")" : "") & (price ? ": " & price : "")), "\\n") }}',
          `${admin}/orders/{{id}}`,
        ]),
      }),
      on('refund', `${topic} = "refunds/create"`, {
        name: 'Shopify refund on order {{order_id}}',
        sessionKey: 'hook:shopify:order:{{order_id}}',
        messageTemplate: messageLines([
          `Shopify refund on {{headers.x-shopify-shop-domain}} for order {{order_id}}{{ ${refundTotal} }}{{ note ? ": " & note : "" }}`,
          '{{ $join(refund_line_items.("- " & quantity & " x " & (line_item.title ? line_item.title : "line item " & line_item_id) & (subtotal_set.shop_money.amount ? ": " & subtotal_set.shop_money.amount & " " & subtotal_set.shop_money.currency_code : $exists(subtotal) ? ": " & subtotal : "")), "\\n") }}',
          `${admin}/orders/{{order_id}}`,
        ]),
      }),
      on('customer', `$substringBefore(${topic}, "/") = "customers"`, {
        name: 'Shopify customer {{id}}',
        sessionKey: 'hook:shopify:customer:{{id}}',
        messageTemplate: messageLines([
          'Shopify {{headers.x-shopify-topic}} on {{headers.x-shopify-shop-domain}}: {{ ($n := $join([first_name, last_name][$type($) = "string" and $ != ""], " "); $n ? $n : "customer " & id) }} ({{ email ? email : "no email" }}){{ state ? ", account " & state : "" }}{{ note ? ", note: " & note : "" }}',
          `${admin}/customers/{{id}}`,
        ]),
      }),
      on('event', 'true', {
        name: 'Shopify {{headers.x-shopify-topic}}',
        sessionKey: 'hook:shopify:{{headers.x-shopify-topic}}:{{ id ? id : headers.x-shopify-webhook-id }}',
        messageTemplate: `Shopify {{headers.x-shopify-topic}} on {{headers.x-shopify-shop-domain}}{{ id ? " for " & id : "" }}{{ admin_graphql_api_id ? " (" & admin_graphql_api_id & ")" : "" }}`,
      }),
    ];
  },
});
