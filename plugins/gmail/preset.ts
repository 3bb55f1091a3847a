import { definePreset, presetCommonOptions, messageLines } from '../../src/plugin-sdk/sdk.js';
import type { GmailConfig } from './config.js';

/**
 * The gmail preset: an ordinary mapping, as plain data. New mail posted to `<hooks.path>/gmail`
 * (by `herald webhooks gmail run`) becomes an agent run whose session is the message id.
 * Payload: `{source, account, historyId, messages:[{id, threadId, from, to, subject, date, snippet, body, bodyTruncated, labels}]}`.
 * Its model, thinking and safety wrapper come from `hooks.gmail` unless the preset entry sets them.
 */
export const gmailPreset = definePreset({
  path: 'gmail',
  verifies: 'the hook token (the watcher sends it; Pub/Sub pushes are verified by the watcher)',
  summary: 'New mail in a watched Gmail inbox (posted by `herald webhooks gmail run`) becomes an agent run per message.',
  docs: 'https://developers.google.com/gmail/api/guides/push',
  options: presetCommonOptions,
  optionsFromConfig: (section) => {
    const gmail = section as GmailConfig | undefined;
    return {
      ...(gmail?.model !== undefined && { model: gmail.model }),
      ...(gmail?.thinking !== undefined && { thinking: gmail.thinking }),
      ...(gmail?.allowUnsafeExternalContent !== undefined && { allowUnsafeExternalContent: gmail.allowUnsafeExternalContent }),
    };
  },
  mappings: (options) => [
    {
      id: 'gmail',
      match: { path: options.path },
      action: 'agent',
      name: 'Gmail',
      sessionKey: 'hook:gmail:{{messages[0].id}}',
      // the key the watcher sends as its Idempotency-Key header (which wins when present), so a
      // message posted by hand or by a relay without the header is still taken once
      idempotencyKey: 'gmail:{{ $lowercase(account) }}:{{messages[0].id}}',
      // the watcher posts "" for a header the mail lacks and for a body it was told not to include
      messageTemplate: messageLines([
        'New email from {{ messages[0].from ? messages[0].from : "an unknown sender" }}',
        'Subject: {{ messages[0].subject ? messages[0].subject : "(no subject)" }}',
        '{{ messages[0].snippet }}',
        '{{ messages[0].body ? messages[0].body & (messages[0].bodyTruncated ? "\\n(body truncated)" : "") : "" }}',
      ]),
    },
  ],
});
