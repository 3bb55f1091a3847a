import { z } from 'zod';
import { definePreset, notListed, presetCommonOptions, presetRoutes } from '../../src/plugin-sdk/sdk.js';

/** the event types an agent sees unless `events` says otherwise: money that moved or did not, disputes, subscriptions that stopped */
export const PAYPAL_DEFAULT_EVENTS = [
  'PAYMENT.CAPTURE.COMPLETED',
  'PAYMENT.CAPTURE.DENIED',
  'PAYMENT.CAPTURE.REFUNDED',
  'PAYMENT.CAPTURE.REVERSED',
  'CUSTOMER.DISPUTE.CREATED',
  'CUSTOMER.DISPUTE.UPDATED',
  'CUSTOMER.DISPUTE.RESOLVED',
  'BILLING.SUBSCRIPTION.CANCELLED',
  'BILLING.SUBSCRIPTION.SUSPENDED',
  'BILLING.SUBSCRIPTION.PAYMENT.FAILED',
];

/** `, 10.99 USD` from a PayPal money object (`{currency_code, value}`), nothing when it is absent */
const money = (field: string, before = ', ') => `(${field}.value ? "${before}" & ${field}.value & (${field}.currency_code ? " " & ${field}.currency_code : "") : "")`;

/**
 * PayPal REST webhooks (https://developer.paypal.com/api/rest/webhooks/): routed by `event_type`
 * (https://developer.paypal.com/api/rest/webhooks/event-names/); captures and refunds, one session
 * per order (else per capture), disputes one per dispute, subscriptions one per subscription; types
 * not in `events` answered 204. PayPal retries an undelivered event for three days with the same
 * event id (`WH-...`): it is the key.
 */
export const paypalPreset = definePreset({
  path: 'paypal',
  verifies: "PAYPAL-TRANSMISSION-SIG: SHA256withRSA over `<transmission id>|<transmission time>|<webhookId>|<CRC32 of the body>`, checked with the certificate at PAYPAL-CERT-URL (an https URL on PayPal's API hosts; the certificate valid now, issued to messageverificationcerts[.sandbox].paypal.com and chained to a trusted root; fetched once and kept)",
  summary: 'PayPal payments (captured, denied, refunded, reversed), disputes and stopped subscriptions become agent runs, one session per order, dispute or subscription.',
  docs: 'https://developer.paypal.com/api/rest/webhooks/rest/',
  options: presetCommonOptions.extend({
    webhookId: z
      .string()
      .regex(/^[A-Za-z0-9]{1,50}$/, 'a PayPal Webhook ID (letters and digits)')
      .optional()
      .describe("The listener's Webhook ID (the app's Webhooks list in PayPal's developer dashboard; ${ENV} allowed). PayPal signs it with every delivery."),
    certUrls: z
      .array(z.string().url())
      .min(1)
      .optional()
      .describe('For a fake PayPal in tests only: URL prefixes PAYPAL-CERT-URL must start with. Default: an https URL under /v1/notifications/certs/ on api.paypal.com, api.sandbox.paypal.com, api-m.paypal.com or api-m.sandbox.paypal.com.'),
    certRoots: z
      .string()
      .includes('-----BEGIN CERTIFICATE-----', { message: 'PEM certificates (-----BEGIN CERTIFICATE-----)' })
      .optional()
      .describe("For a fake PayPal in tests only: PEM certificates PayPal's signing certificate must chain to, instead of Node's root store."),
  }),
  requires: ['webhookId'],
  mappings: (o) => {
    const events = o.events ?? PAYPAL_DEFAULT_EVENTS;
    const on = presetRoutes({
      prefix: 'paypal',
      path: o.path,
      auth: { type: 'paypal', webhookId: o.webhookId!, ...(o.certUrls && { certUrls: o.certUrls }), ...(o.certRoots && { certRoots: o.certRoots }) },
      idempotencyKey: 'paypal:{{ id ? id : headers.paypal-transmission-id }}',
    });
    // a refund's capture is its `up` link (https://developer.paypal.com/docs/api/payments/v2/#refunds_get)
    const capture = '(resource_type = "refund" ? $substringAfter(resource.links[rel = "up"][0].href, "/captures/") : resource.id)';
    const order = 'resource.supplementary_data.related_ids.order_id';
    const who = '($n := $join([resource.subscriber.name.given_name, resource.subscriber.name.surname][$type($) = "string" and $ != ""], " "); $n ? $n & (resource.subscriber.email_address ? " (" & resource.subscriber.email_address & ")" : "") : resource.subscriber.email_address ? resource.subscriber.email_address : "")';
    return [
      on('skip', notListed('event_type', events), { action: 'skip' }),
      on('capture', '$substring(event_type, 0, 16) = "PAYMENT.CAPTURE."', {
        schema: { type: 'object', required: ['event_type', 'resource'] },
        name: 'PayPal {{ $lowercase($substringAfter(event_type, "PAYMENT.CAPTURE.")) }} {{ resource.id }}',
        sessionKey: `hook:paypal:{{ ${order} ? "order:" & ${order} : "capture:" & ${capture} }}`,
        messageTemplate: [
          `PayPal {{event_type}}: {{ resource_type = "refund" ? "refund " & resource.id & " of capture " & ${capture} : "capture " & resource.id }}{{ ${money('resource.amount')} }}{{ resource.status ? ", status " & resource.status : "" }}{{ resource.status_details.reason ? " (" & resource.status_details.reason & ")" : "" }}{{ ${order} ? ", order " & ${order} : "" }}{{ resource.invoice_id ? ", invoice " & resource.invoice_id : "" }}{{ resource.custom_id ? ", custom id " & resource.custom_id : "" }}`,
          `{{ resource.seller_receivable_breakdown.net_amount.value ? "\\nNet " & resource.seller_receivable_breakdown.net_amount.value & " " & resource.seller_receivable_breakdown.net_amount.currency_code & ${money('resource.seller_receivable_breakdown.paypal_fee', ' after a fee of ')} & "." : resource.seller_payable_breakdown.net_amount.value ? "\\nNet " & resource.seller_payable_breakdown.net_amount.value & " " & resource.seller_payable_breakdown.net_amount.currency_code & " paid back." : "" }}`,
          '{{ summary ? "\\n" & summary : "" }}',
        ].join(''),
      }),
      on('dispute', '$substring(event_type, 0, 17) = "CUSTOMER.DISPUTE."', {
        schema: { type: 'object', required: ['event_type', 'resource'] },
        name: 'PayPal dispute {{ resource.dispute_id }}',
        sessionKey: 'hook:paypal:dispute:{{ resource.dispute_id }}',
        messageTemplate: [
          `PayPal {{event_type}}: dispute {{ resource.dispute_id }}{{ resource.reason ? ", reason " & resource.reason : "" }}{{ ${money('resource.dispute_amount')} }}{{ resource.status ? ", status " & resource.status : "" }}{{ resource.dispute_life_cycle_stage ? ", stage " & resource.dispute_life_cycle_stage : "" }}{{ resource.dispute_outcome.outcome_code ? ", outcome " & resource.dispute_outcome.outcome_code : "" }}`,
          '{{ $join(resource.disputed_transactions.("\\nTransaction " & seller_transaction_id & (buyer.name ? " by " & buyer.name : "") & (gross_amount.value ? ", " & gross_amount.value & " " & gross_amount.currency_code : ""))) }}',
          '{{ resource.seller_response_due_date ? "\\nRespond by " & resource.seller_response_due_date & "." : "" }}',
          '{{ $join(resource.messages.("\\n" & posted_by & ": " & content)) }}',
        ].join(''),
      }),
      on('subscription', '$substring(event_type, 0, 21) = "BILLING.SUBSCRIPTION."', {
        schema: { type: 'object', required: ['event_type', 'resource'] },
        name: 'PayPal subscription {{ resource.id }} {{ $lowercase($substringAfter(event_type, "BILLING.SUBSCRIPTION.")) }}',
        sessionKey: 'hook:paypal:subscription:{{ resource.id }}',
        messageTemplate: [
          `PayPal {{event_type}}: subscription {{ resource.id }}{{ resource.plan_id ? " of plan " & resource.plan_id : "" }}{{ resource.status ? ", status " & resource.status : "" }}{{ ($w := ${who}; $w ? ", subscriber " & $w : "") }}{{ resource.custom_id ? ", custom id " & resource.custom_id : "" }}`,
          `{{ resource.status_change_note ? "\\nNote: " & resource.status_change_note : "" }}{{ resource.billing_info.failed_payments_count ? "\\nFailed payments: " & resource.billing_info.failed_payments_count & ${money('resource.billing_info.outstanding_balance', ', outstanding ')} & "." : "" }}`,
          '{{ summary ? "\\n" & summary : "" }}',
        ].join(''),
      }),
      on('event', 'true', {
        schema: { type: 'object', required: ['event_type'] },
        name: 'PayPal {{ event_type }}',
        sessionKey: 'hook:paypal:{{ resource_type ? resource_type : "event" }}:{{ resource.id ? resource.id : id }}',
        messageTemplate: 'PayPal {{event_type}}{{ resource_type ? " on " & resource_type & (resource.id ? " " & resource.id : "") : "" }}{{ summary ? ": " & summary : "" }}',
      }),
    ];
  },
});
