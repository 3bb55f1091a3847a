import { definePreset, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Typeform webhooks (https://www.typeform.com/developers/webhooks/example-payload/), signed with
 * the webhook's secret (Typeform-Signature `sha256=<base64 HMAC-SHA256 of the body>`,
 * https://www.typeform.com/developers/webhooks/secure-your-webhooks/).
 * A completed response (`form_response`) is an agent run listing each question with its answer,
 * one session per response; partial responses (`form_response_partial`) are answered 204.
 * `event_id` is the key.
 */
export const typeformPreset = definePreset({
  path: 'typeform',
  verifies: 'Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body with `secret`, the webhook\'s secret>',
  summary: 'Typeform responses become agent runs listing each question and answer, one session per response.',
  docs: 'https://www.typeform.com/developers/webhooks/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? ['form_response'];
    const on = presetRoutes({ prefix: 'typeform', path: o.path, auth: { type: 'hmac-sha256', header: 'Typeform-Signature', encoding: 'base64', secret: o.secret! }, idempotencyKey: 'typeform:{{ event_id }}' });
    // each answer's value by its type (https://www.typeform.com/developers/responses/reference/retrieve-responses/#answers)
    const value =
      '(type = "choice" ? (choice.label ? choice.label : choice.other) : type = "choices" ? $join($append(choices.labels, choices.other)[$type($) = "string"], ", ") : type = "boolean" ? (boolean ? "yes" : "no") : type = "number" ? $string(number) : type = "file_url" ? file_url : type = "payment" ? payment.amount & " paid" : $string($lookup($, type)))';
    return [
      on('skip', `$not(event_type in ${JSON.stringify(events)})`, { action: 'skip' }),
      on('response', 'event_type = "form_response"', {
        name: 'Typeform {{ form_response.definition.title ? form_response.definition.title : form_response.form_id }}',
        sessionKey: 'hook:typeform:{{ form_response.form_id }}:{{ form_response.token }}',
        messageTemplate: messageLines([
          'Typeform response to {{ form_response.definition.title ? "\\"" & form_response.definition.title & "\\"" : "form " & form_response.form_id }}{{ form_response.submitted_at ? " submitted " & form_response.submitted_at : "" }}',
          `{{ ($fields := form_response.definition.fields; $join(form_response.answers[$type($) = "object"].( $id := field.id; $v := ${value}; ($fields[id = $id].title ? $fields[id = $id].title : field.ref) & ": " & ($v ? $v : "(no answer)") ), "\\n")) }}`,
        ]),
      }),
    ];
  },
});
