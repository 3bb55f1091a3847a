import { z } from 'zod';
import { definePreset, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * A Discord application's Interactions Endpoint URL (https://discord.com/developers/docs/interactions/receiving-and-responding),
 * every request verified with the application's public key (X-Signature-Ed25519 over
 * X-Signature-Timestamp and the body).
 * - PING (type 1) is answered PONG (`{"type":1}`): Discord sends it when the URL is saved.
 * - A slash command (APPLICATION_COMMAND, 2) or a modal submit (5) is an agent run, one session
 *   per channel and user; its reply, when ready within `replyWaitMs` (Discord allows 3 s), is
 *   answered in place (CHANNEL_MESSAGE_WITH_SOURCE, 4), else deferred
 *   (DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, 5: "is thinking…") and the reply, when ready, edits
 *   that response through the durable outbox (the discord channel's `interaction:` recipient,
 *   within the token's 15 minutes); `replyInChannel` posts it to the interaction's channel instead.
 *   A run that fails, times out or answers nothing edits it into a short error line instead.
 * - A button or select (MESSAGE_COMPONENT, 3) is a run too, deferred as an update (6) when slow,
 *   its reply then a follow-up message (`followup:`), leaving the message with the button as it is.
 * - Autocomplete (4) is answered 204: an agent run cannot answer within Discord's window.
 * The interaction's `id` is the key (Discord does not retry, but a relay may).
 * Its `token` is a credential: a retained payload keeps `…` in its place, a run's action keeps it
 * only until its reply's delivery is final (or its 15 minutes are over).
 */
export const discordPreset = definePreset({
  path: 'discord',
  verifies: "X-Signature-Ed25519: Ed25519 signature of X-Signature-Timestamp + body, checked with `publicKey` (the application's Public Key, hex)",
  summary: 'Discord interactions (slash commands, buttons, modals) answered in place or deferred; PING answered PONG.',
  docs: 'https://discord.com/developers/docs/interactions/receiving-and-responding',
  options: presetCommonOptions.extend({
    publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'a hex Ed25519 public key (64 hex digits)').optional().describe("The application's Public Key (General Information in the developer portal), hex."),
    replyWaitMs: z.number().int().positive().max(2900).default(2500).describe('How long an interaction waits for the reply to answer it in place (Discord allows 3 s); past it the answer is deferred.'),
    editDeferred: z
      .boolean()
      .optional()
      .describe('Edit the deferred response ("is thinking…") into the reply once it is ready, within the token\'s 15 minutes, through the discord channel (channels.discord needed, a bot token not). Default: true when channels.discord is configured.'),
    replyInChannel: z
      .boolean()
      .default(false)
      .describe("Deliver a reply that missed replyWaitMs as a new message in the interaction's channel (channels.discord.botToken needed) instead: sets channel and to."),
  }),
  requires: ['publicKey'],
  // the discord channel's own section: configured, it can edit the deferred response
  optionsFromConfig: (section) => (section !== undefined ? { editDeferred: true } : {}),
  mappings: (o) => {
    // the interaction's token answers it for 15 minutes: a retained payload (replay, backtests) keeps `…` in its place
    const on = presetRoutes({ prefix: 'discord', path: o.path, auth: { type: 'ed25519', publicKey: o.publicKey! }, idempotencyKey: 'discord:{{ id }}', retainMasked: ['token'] });
    const user = '(member ? member.user : user)';
    // the name Discord shows and the id; a user without a display name by username
    const who = `($u := ${user}; ($u.global_name ? $u.global_name : $u.username) ? ($u.global_name ? $u.global_name : $u.username) & " (" & $u.id & ")" : $u.id)`;
    // channel_id is optional in an interaction (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object)
    const where = '{{ channel_id ? " in channel " & channel_id : "" }}{{ guild_id ? " of server " & guild_id : "" }}';
    // a subcommand (group) carries no value but options of its own
    const options = '($opt := function($o) { $o.name & ($exists($o.value) ? ": " & $string($o.value) : $o.options ? " " & $join($o.options.$opt($), ", ") : "") }; $join(data.options.$opt($), "\\n"))';
    // a reply that missed replyWaitMs: the interaction's channel, or the interaction itself (its token, valid 15 minutes, in the recipient)
    // a run that ends without a reply says so there too: else Discord shows "is thinking…" until the token expires
    const failureReply = 'Sorry, this request failed.';
    const later = (mode: 'interaction' | 'followup') =>
      o.replyInChannel
        ? { channel: 'discord', to: '{{ channel_id }}', failureReply }
        : o.editDeferred
          ? {
              channel: 'discord',
              to: `${mode}:{{ application_id }}:{{ id }}#token={{ token }}`,
              failureReply,
              // the recipient is built from application_id (Discord always sends it): an interaction without it is refused naming it
              schema: { type: 'object', required: ['application_id', 'id', 'token'] },
            }
          : {};
    const answer = (deferred: number) => ({
      waitMs: o.replyWaitMs,
      contentType: 'application/json',
      body: '{"type":4,"data":{"content":"{{ reply }}","allowed_mentions":{"parse":[]}}}',
      fallback: { status: 200, body: JSON.stringify({ type: deferred }) },
    });
    return [
      on('ping', 'type = 1', { respond: { when: 'true', contentType: 'application/json', body: '{"type":1}' } }),
      on('autocomplete', 'type = 4', { action: 'skip' }),
      on('command', 'type in [2, 5]', {
        name: 'Discord /{{ data.name ? data.name : data.custom_id }}',
        sessionKey: `hook:discord:{{ channel_id }}:{{ ${user}.id }}`,
        messageTemplate: messageLines([
          `Discord {{ type = 2 ? "/" & data.name : "form " & data.custom_id }} from {{ ${who} }}${where}`,
          `{{ type = 2 ? ${options} : $join(data.components.components.(custom_id & (value ? ": " & value : " (empty)")), "\\n") }}`,
        ]),
        respond: answer(5),
        ...later('interaction'),
      }),
      on('component', 'type = 3', {
        name: 'Discord {{ data.custom_id }}',
        sessionKey: `hook:discord:{{ channel_id }}:{{ ${user}.id }}`,
        messageTemplate:
          `Discord {{ data.component_type = 2 ? "button" : "select" }} {{ data.custom_id }}{{ data.values ? " = " & $join(data.values, ", ") : "" }} pressed by {{ ${who} }}{{ message.id ? " on message " & message.id : "" }}${where}`,
        respond: answer(6),
        ...later('followup'),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
