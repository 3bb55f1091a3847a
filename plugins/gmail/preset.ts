import type { MappingConfig } from '../../src/plugins/sdk.js';
import type { GmailConfig } from './config.js';

/**
 * The gmail preset: an ordinary mapping, as plain data. New mail posted to `<hooks.path>/gmail`
 * (by `herald webhooks gmail run`) becomes an agent run whose session is the message id.
 * Payload: `{source, account, historyId, messages:[{id, threadId, from, to, subject, date, snippet, body, bodyTruncated, labels}]}`.
 */
export function gmailPresetMappings(config: GmailConfig | undefined): MappingConfig[] {
  return [
    {
      id: 'gmail',
      match: { path: 'gmail' },
      action: 'agent',
      name: 'Gmail',
      sessionKey: 'hook:gmail:{{messages[0].id}}',
      // the key the watcher sends as its Idempotency-Key header (which wins when present), so a
      // message posted by hand or by a relay without the header is still taken once
      idempotencyKey: 'gmail:{{ $lowercase(account) }}:{{messages[0].id}}',
      messageTemplate: 'New email from {{messages[0].from}}\nSubject: {{messages[0].subject}}\n{{messages[0].snippet}}\n{{messages[0].body}}',
      ...(config?.model !== undefined && { model: config.model }),
      ...(config?.thinking !== undefined && { thinking: config.thinking }),
      ...(config?.allowUnsafeExternalContent !== undefined && { allowUnsafeExternalContent: config.allowUnsafeExternalContent }),
    },
  ];
}
