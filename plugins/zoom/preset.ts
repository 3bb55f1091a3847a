import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise */
export const ZOOM_DEFAULT_EVENTS = ['meeting.ended', 'recording.completed', 'recording.transcript_completed'];

/**
 * Zoom event subscriptions (https://developers.zoom.us/docs/api/webhooks/), verified with the app's
 * Secret Token (x-zm-signature, https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events).
 * - `endpoint.url_validation` (https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint)
 *   is answered with its plainToken and the hex HMAC-SHA256 of it with the Secret Token, as Zoom
 *   asks when the URL is saved and every 72 hours after.
 * - Routed by `event`; Zoom's own `payload` field is `payload.payload` in templates (`payload.` names the body).
 * - one session per meeting (its recording joins it). Zoom sends no delivery
 *   id: the event, the meeting's uuid and `event_ts` (kept on a retry) make the key.
 */
export const zoomPreset = definePreset({
  path: 'zoom',
  verifies: "x-zm-signature (v0, HMAC-SHA256 of v0:x-zm-request-timestamp:body with `secret`, the app's Secret Token), the timestamp within 5 minutes",
  summary: 'Zoom meetings ended and recordings or transcripts ready become agent runs, one session per meeting; the endpoint.url_validation handshake answered.',
  docs: 'https://developers.zoom.us/docs/api/webhooks/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? ZOOM_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'zoom', path: o.path, auth: { type: 'zoom', secret: o.secret! }, idempotencyKey: 'zoom:{{ event }}:{{ payload.payload.object.uuid }}:{{ event_ts }}' });
    const meeting = 'hook:zoom:meeting:{{ payload.payload.object.uuid }}';
    // the topic and id, whichever Zoom sent (a meeting without topic is named by its id, or its uuid)
    const topic =
      '{{ ($o := payload.payload.object; $o.topic ? "\\"" & $o.topic & "\\"" & ($o.id ? " (" & $o.id & ")" : "") : $o.id ? $o.id : $o.uuid) }}';
    return [
      on('url-validation', 'event = "endpoint.url_validation"', {
        respond: {
          when: 'true',
          secret: o.secret!,
          contentType: 'application/json',
          body: '{"plainToken":"{{ payload.payload.plainToken }}","encryptedToken":"{{ $hmacSha256($secret, payload.payload.plainToken) }}"}',
        },
      }),
      on('skip', notListed('event', events), { action: 'skip' }),
      on('meeting-ended', 'event = "meeting.ended"', {
        name: 'Zoom meeting {{ payload.payload.object.id }}',
        sessionKey: meeting,
        messageTemplate: messageLines([
          `Zoom meeting ${topic} ended{{ payload.payload.object.duration ? " after " & payload.payload.object.duration & " min" : "" }}`,
          '{{ ($o := payload.payload.object; $t := $join([$o.start_time ? "started " & $o.start_time, $o.end_time ? "ended " & $o.end_time], ", "); $l := $join([$t ? $t, $o.host_id ? "host " & $o.host_id], "; "); $uppercase($substring($l, 0, 1)) & $substring($l, 1)) }}',
        ]),
      }),
      on('recording', 'event in ["recording.completed", "recording.transcript_completed"]', {
        name: 'Zoom recording {{ payload.payload.object.id }}',
        sessionKey: meeting,
        messageTemplate: messageLines([
          `Zoom {{ event = "recording.completed" ? "recording" : "transcript" }} ready for ${topic}{{ ($f := payload.payload.object.recording_files; $types := $join($f.file_type[$type($) = "string"], ", "); $count($f) > 0 ? ": " & $count($f) & " file(s)" & ($types ? " (" & $types & ")" : "") : "") }}`,
          '{{ payload.payload.object.share_url }}',
        ]),
      }),
      on('other', 'true', {
        name: 'Zoom {{ event }}',
        sessionKey: 'hook:zoom:{{ event }}:{{ payload.payload.object.uuid ? payload.payload.object.uuid : payload.payload.object.id }}',
        messageTemplate: 'Zoom {{ event }}{{ payload.payload.object.topic ? ": " & payload.payload.object.topic : payload.payload.object ? ": " & $string(payload.payload.object) : "" }}',
      }),
    ];
  },
});
