import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the event types an agent sees unless `events` says otherwise */
export const NOTION_DEFAULT_EVENTS = ['page.created', 'page.content_updated', 'page.properties_updated', 'page.deleted', 'page.undeleted', 'comment.created', 'database.created', 'database.schema_updated'];

/**
 * Notion integration webhooks (https://developers.notion.com/reference/webhooks): an event per
 * POST, `{id, type, timestamp, workspace_name, authors, entity, data}`, signed with
 * X-Notion-Signature once the subscription is verified. Making the subscription, Notion posts
 * `{"verification_token": "..."}` once, unsigned: answered 200 without a run, its payload
 * retained so the operator reads the token in the console (it is also the `secret`). Routed by
 * `type` (types not in `events` answered 204, and events only bots authored, such as the
 * integration's own writes); an agent run per page or database (a comment joins its page), the
 * event id the key, the same on Notion's retries (attempt_number).
 */
export const notionPreset = definePreset({
  path: 'notion',
  verifies: 'X-Notion-Signature: sha256=<hex HMAC-SHA256 of the body> with `secret` (the subscription\'s verification token); the unsigned verification request is answered',
  summary: 'Notion pages, databases and comments created or changed become agent runs, one session per page or database; the verification request answered and kept for the operator.',
  docs: 'https://developers.notion.com/reference/webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? NOTION_DEFAULT_EVENTS;
    const auth = { type: 'notion' as const, secret: o.secret! };
    const on = presetRoutes({ prefix: 'notion', path: o.path, auth, idempotencyKey: 'notion:{{id}}' });
    // a comment's page is its parent (data.page_id), a page's or database's the entity itself
    const subject = '{{ data.page_id ? data.page_id : entity.id }}';
    const url = '"https://www.notion.so/" & $replace(data.page_id ? data.page_id : entity.id, "-", "")';
    return [
      {
        id: 'notion-verification',
        match: { path: o.path, when: '$exists(verification_token)' },
        auth,
        // kept with its receipt: the token is what the operator types into Notion's Verify dialog
        retainPayloads: true,
        respond: { when: 'true', status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      },
      on('skip', `${notListed('type', events)} or ($count(authors) > 0 and $count(authors[type != "bot"]) = 0)`, { action: 'skip' }),
      on('event', 'true', {
        schema: { type: 'object', required: ['id', 'type', 'entity'] },
        name: 'Notion {{type}}',
        sessionKey: `hook:notion:${subject}`,
        messageTemplate: messageLines([
          'Notion {{type}}{{ workspace_name ? " in " & workspace_name : "" }}: {{entity.type}} {{entity.id}}{{ $count(authors) > 0 ? " by " & $join(authors.(type & " " & id), ", ") : "" }}{{ timestamp ? " at " & timestamp : "" }}',
          `{{ ${url} }}`,
          '{{ $join([data.parent.type ? "Parent: " & data.parent.type & " " & data.parent.id, $count(data.updated_properties) > 0 ? "Properties changed: " & $join(data.updated_properties, ", "), $count(data.updated_blocks) > 0 ? $count(data.updated_blocks) & " block(s) changed"], "\\n") }}',
        ]),
      }),
    ];
  },
});
