import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the topics an agent sees unless `events` says otherwise */
export const INTERCOM_DEFAULT_EVENTS = ['conversation.user.created', 'conversation.user.replied', 'ticket.created'];

/**
 * Intercom webhooks (https://developers.intercom.com/docs/webhooks), signed with the app's client
 * secret (X-Hub-Signature `sha1=<hex>`, https://developers.intercom.com/intercom-api-reference/v1.0/reference/signed-notifications).
 * - The `ping` notification Intercom sends when the subscription is saved is answered 200.
 * - Routed by `topic`; one session per conversation (a ticket per ticket). The notification's
 *   `id` (`notif_…`, kept on a retry) is the key. Conversation bodies are HTML: tags are dropped.
 */
export const intercomPreset = definePreset({
  path: 'intercom',
  verifies: "X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body with `secret`, the app's client secret>",
  summary: 'Intercom conversations started or replied to by a customer, and new tickets, become agent runs, one session per conversation.',
  docs: 'https://developers.intercom.com/docs/webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? INTERCOM_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'intercom', path: o.path, auth: { type: 'hmac-sha1', header: 'X-Hub-Signature', secret: o.secret! }, idempotencyKey: 'intercom:{{ id }}' });
    // a part's body is null when it carries only attachments
    const text = (html: string) => `($type(${html}) = "string" ? $trim($replace($replace(${html}, /<br\\s*\\/?>|<\\/p>/, "\\n"), /<[^>]*>/, "")) : "")`;
    // ticket_state is a string in API 2.9 and an object (internal_label, category) from 2.10
    const ticketState = '($s := data.item.ticket_state ? data.item.ticket_state : data.item.state; $type($s) = "object" ? ($s.internal_label ? $s.internal_label : $s.category) : $s)';
    const who = '{{ ($a := data.item.source.author ? data.item.source.author : data.item.contacts.contacts[0]; $a.name ? $a.name & ($a.email ? " <" & $a.email & ">" : "") : $a.email ? $a.email : $a.id ? ($a.type ? $a.type & " " : "") & $a.id : "someone") }}';
    return [
      on('ping', 'topic = "ping"', { respond: { when: 'true', status: 200, body: '' } }),
      on('skip', notListed('topic', events), { action: 'skip' }),
      on('conversation', 'topic in ["conversation.user.created", "conversation.user.replied"]', {
        name: 'Intercom conversation {{ data.item.id }}',
        sessionKey: 'hook:intercom:conversation:{{ data.item.id }}',
        messageTemplate: messageLines([
          `Intercom {{ topic = "conversation.user.created" ? "new conversation" : "reply" }} from ${who}{{ data.item.title ? ": " & data.item.title : "" }}`,
          `{{ topic = "conversation.user.created" ? ${text('data.item.source.body')} : ${text('data.item.conversation_parts.conversation_parts[-1].body')} }}`,
          '{{ ($files := (topic = "conversation.user.created" ? data.item.source : data.item.conversation_parts.conversation_parts[-1]).attachments.name; $files ? "Attachments: " & $join($files, ", ") : "") }}',
          '{{ links.conversation_web }}',
        ]),
      }),
      on('ticket', 'topic = "ticket.created"', {
        name: 'Intercom ticket {{ data.item.ticket_id ? data.item.ticket_id : data.item.id }}',
        sessionKey: 'hook:intercom:ticket:{{ data.item.id }}',
        messageTemplate: messageLines([
          `Intercom ticket {{ data.item.ticket_id ? "#" & data.item.ticket_id & " " : "" }}{{ data.item.ticket_attributes._default_title_ ? data.item.ticket_attributes._default_title_ : "(no title)" }}{{ ($f := $join([data.item.ticket_type.name, ${ticketState}][$ != ""], ", "); $f ? " (" & $f & ")" : "") }}`,
          '{{ data.item.ticket_attributes._default_description_ }}',
        ]),
      }),
      on('other', 'true', {
        name: 'Intercom {{ topic }}',
        sessionKey: 'hook:intercom:{{ data.item.type }}:{{ data.item.id }}',
        messageTemplate: 'Intercom {{ topic }}{{ ($i := $join([data.item.type, data.item.id], " "); $i ? " for " & $i : "") }}',
      }),
    ];
  },
});
