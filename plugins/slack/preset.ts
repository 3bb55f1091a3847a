import { z } from 'zod';
import { definePreset, presetCommonOptions, type MappingConfig } from '../../src/plugin-sdk/sdk.js';

/**
 * The Slack app preset, beside the Slack channel: one Request URL for the Events API, slash
 * commands and interactivity, every request verified with the app's signing secret
 * (https://api.slack.com/authentication/verifying-requests-from-slack).
 * - Events API (https://api.slack.com/apis/events-api): the url_verification handshake is answered
 *   with its challenge; event_callback is routed by event.type (`events`, default app_mention and
 *   message); Slack's retries (X-Slack-Retry-Num) and bot messages are answered 204; event_id is
 *   the idempotency key. One session per channel thread.
 * - Slash commands (https://api.slack.com/interactivity/slash-commands): form-encoded; the reply,
 *   when ready within `replyWaitMs` (Slack waits 3 s), is answered as an ephemeral message, else
 *   an acknowledgement, and the reply goes out through the channel as usual.
 * - Interactivity (https://api.slack.com/interactivity/handling#payloads): the form's `payload`
 *   JSON (block_actions, view_submission, shortcuts), one session per channel or user.
 */
export const slackPreset = definePreset({
  path: 'slack',
  verifies: 'X-Slack-Signature (v0, HMAC-SHA256 of v0:timestamp:body with `secret`, the signing secret) and X-Slack-Request-Timestamp within 5 minutes',
  summary: 'A Slack app: Events API (with its url_verification handshake), slash commands answered in place, interactivity.',
  docs: 'https://api.slack.com/apis/events-api',
  options: presetCommonOptions.extend({
    replyInThread: z.boolean().default(false).describe('Deliver the reply of an event in its Slack thread through the slack channel (channels.slack needed): sets channel, to and threadId.'),
    replyWaitMs: z.number().int().positive().max(2900).default(2500).describe('How long a slash command waits for the reply to answer it in place (Slack allows 3 s).'),
    ack: z.string().default('Working on it…').describe('The ephemeral answer of a slash command whose reply is not ready within replyWaitMs.'),
  }),
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? ['app_mention', 'message'];
    const base = (id: string, when: string, rest: Omit<MappingConfig, 'id' | 'match'>): MappingConfig => ({
      id: `slack-${id}`,
      match: { path: o.path, when },
      auth: { type: 'slack', secret: o.secret! },
      ...rest,
    });
    const thread = '{{ event.thread_ts ? event.thread_ts : event.ts }}';
    const inThread = o.replyInThread ? { channel: 'slack', to: '{{ event.channel }}', threadId: thread } : {};
    return [
      base('url-verification', 'type = "url_verification"', { respond: { when: 'true', body: '{{ challenge }}', contentType: 'text/plain' } }),
      // Slack retries an event it got no 2xx for within 3 s: the first delivery is being handled
      base('retry', '$exists($headers."x-slack-retry-num")', { action: 'skip' }),
      // the bot's own messages (its replies included) and events not asked for
      base('skip', `type = "event_callback" and ($exists(event.bot_id) or event.subtype = "bot_message" or $not(event.type in ${JSON.stringify(events)}))`, { action: 'skip' }),
      base('event', 'type = "event_callback"', {
        name: 'Slack {{ event.type }}',
        idempotencyKey: 'slack:{{ event_id }}',
        sessionKey: `hook:slack:{{ event.channel }}:${thread}`,
        // an edit or deletion (message_changed, message_deleted) carries its user and text in event.message, or none
        messageTemplate:
          'Slack {{ event.type }}{{ event.subtype ? " (" & event.subtype & ")" }}{{ ($u := event.user ? event.user : event.message.user; $u ? " from <@" & $u & ">") }}{{ event.channel ? " in " & event.channel }}{{ event.thread_ts ? " (thread " & event.thread_ts & ")" : "" }}{{ ($t := event.text ? event.text : event.message.text; $t ? ":\\n" & $t) }}',
        ...inThread,
      }),
      base('command', '$exists(command)', {
        name: 'Slack {{ command }}',
        idempotencyKey: 'slack:{{ trigger_id }}',
        sessionKey: 'hook:slack:{{ channel_id }}:{{ user_id }}',
        messageTemplate: 'Slack command {{ command }}{{ text ? " " & text }} from {{ user_name ? user_name & " (" & user_id & ")" : user_id }}{{ channel_name ? " in #" & channel_name }}',
        respond: {
          waitMs: o.replyWaitMs,
          contentType: 'application/json',
          body: '{"response_type":"ephemeral","text":"{{ reply }}"}',
          fallback: { status: 200, body: JSON.stringify({ response_type: 'ephemeral', text: o.ack }) },
        },
      }),
      base('interaction', '$exists($payload.payload)', {
        name: 'Slack {{ $eval($payload.payload).type }}',
        idempotencyKey: 'slack:{{ $eval($payload.payload).trigger_id }}',
        sessionKey: 'hook:slack:{{ ($i := $eval($payload.payload); $i.channel.id ? $i.channel.id : $i.user.id) }}',
        messageTemplate:
          // a shortcut or view_submission has no actions: its callback_id names it
          'Slack {{ ($i := $eval($payload.payload); $i.type & ($i.user.username ? " by " & $i.user.username & " (" & $i.user.id & ")" : " by " & $i.user.id) & ($i.actions ? ": " & $join($i.actions.(action_id & ($exists(value) or $exists(selected_option.value) ? "=" & (value ? value : selected_option.value) : "")), ", ") : ($i.callback_id or $i.view.callback_id) ? ": " & ($i.callback_id ? $i.callback_id : $i.view.callback_id) : "")) }}',
      }),
    ];
  },
});
