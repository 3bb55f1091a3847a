import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the event types an agent sees unless `events` says otherwise */
export const STRIPE_DEFAULT_EVENTS = ['invoice.payment_failed', 'charge.dispute.created', 'customer.subscription.deleted', 'payment_intent.payment_failed'];

/** an amount in the currency's smallest unit, as "1,234.56 EUR" (zero-decimal currencies such as JPY are not divided) */
const amount = (field: string) =>
  `$formatNumber(${field} / ($uppercase(data.object.currency) in ["BIF","CLP","DJF","GNF","JPY","KMF","KRW","MGA","PYG","RWF","UGX","VND","VUV","XAF","XOF","XPF"] ? 1 : 100), "#,##0.00") & " " & $uppercase(data.object.currency)`;

/**
 * Stripe events (https://docs.stripe.com/webhooks): routed by `type`, one session per customer
 * (or per object when it has none); types not in `events` answered 204. Stripe retries a delivery
 * for up to three days with the same event id (`evt_...`): it is the key (keep
 * hooks.idempotencyTtlHours at 72 for that).
 */
export const stripePreset = definePreset({
  path: 'stripe',
  verifies: 'Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body"> with `secret` (the endpoint\'s whsec_... signing secret), t within 5 minutes',
  summary: 'Stripe events (failed payments, disputes, cancelled subscriptions, ...) become agent runs, one session per customer.',
  docs: 'https://docs.stripe.com/webhooks#verify-events',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? STRIPE_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'stripe', path: o.path, auth: { type: 'stripe', secret: o.secret! }, idempotencyKey: '{{ id }}' });
    const customer = 'hook:stripe:{{ data.object.customer ? data.object.customer : data.object.id }}';
    const dashboard = '{{ "https://dashboard.stripe.com/" & (livemode ? "" : "test/") & "events/" & id }}';
    return [
      on('skip', notListed('type', events), { action: 'skip' }),
      on('payment-failed', 'type = "invoice.payment_failed"', {
        name: 'Stripe payment failed',
        sessionKey: customer,
        messageTemplate: messageLines([
          'Payment failed for {{ data.object.customer_email ? data.object.customer_email & (data.object.customer ? " (" & data.object.customer & ")" : "") : data.object.customer_name ? data.object.customer_name & (data.object.customer ? " (" & data.object.customer & ")" : "") : data.object.customer ? "customer " & data.object.customer : "a customer" }}:',
          `invoice {{ data.object.number ? data.object.number : data.object.id }}{{ $exists(data.object.amount_due) and data.object.currency ? ", " & ${amount('data.object.amount_due')} : "" }}{{ data.object.attempt_count ? ", attempt " & data.object.attempt_count : "" }}{{ data.object.next_payment_attempt ? ", next attempt " & $fromMillis(data.object.next_payment_attempt * 1000) : ", no further attempt" }}.`,
          '{{ data.object.hosted_invoice_url ? data.object.hosted_invoice_url : "" }}',
          dashboard,
        ]),
      }),
      on('dispute', 'type = "charge.dispute.created"', {
        name: 'Stripe dispute',
        sessionKey: 'hook:stripe:{{ data.object.charge }}',
        messageTemplate: messageLines([
          `A dispute was opened on charge {{data.object.charge}}{{ $exists(data.object.amount) and data.object.currency ? ": " & ${amount('data.object.amount')} : "" }}{{ data.object.reason ? ", reason \\"" & data.object.reason & "\\"" : "" }}{{ data.object.status ? ", status " & data.object.status : "" }}.`,
          '{{ data.object.evidence_details.due_by ? "Evidence is due by " & $fromMillis(data.object.evidence_details.due_by * 1000) & "." : "" }}',
          dashboard,
        ]),
      }),
      on('event', 'true', {
        name: 'Stripe {{type}}',
        sessionKey: customer,
        messageTemplate: messageLines([
          'Stripe {{type}}: {{ data.object.object ? data.object.object & " " : "" }}{{data.object.id}}{{ data.object.customer ? " of customer " & data.object.customer : "" }}{{ data.object.amount and data.object.currency ? ", " & ' + amount('data.object.amount') + ' : "" }}{{ data.object.status ? ", status " & data.object.status : "" }}.',
          dashboard,
        ]),
      }),
    ];
  },
});
