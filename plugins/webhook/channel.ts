import { createHmac } from 'node:crypto';
import { callPlatform } from '../../src/plugin-sdk/channel-http.js';
import type { ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { traceHeaders } from '../../src/plugin-sdk/trace-headers.js';
import type { WebhookConfig } from './config.js';

/** `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>` keyed with the decoded `whsec_` secret */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * `POST {url}` with the reply as JSON, Standard Webhooks headers, signed when a secret is set.
 * Any 2xx accepts (https://www.standardwebhooks.com/, spec.md); 408, 429 (Retry-After) and 5xx are
 * retried, any other 4xx is the receiver refusing this delivery for good: permanent.
 */
export function webhookChannel(config: WebhookConfig): ChannelAdapter {
  return {
    requiresRecipient: false,
    async send(message) {
      const body = JSON.stringify({
        text: message.text,
        to: message.to || null,
        runId: message.runId,
        sessionKey: message.sessionKey,
        agent: message.agentId,
        createdAt: message.createdAt,
        ...(message.threadId && { threadId: message.threadId }),
      });
      const timestamp = Math.floor(Date.now() / 1000);
      // webhook-id is the delivery id: stable across retries, the receiver's idempotency key
      // with the delivery attempt's traceparent when tracing is on: the receiver may continue the trace
      const headers: Record<string, string> = traceHeaders({
        'content-type': 'application/json',
        'webhook-id': message.deliveryId,
        'webhook-timestamp': String(timestamp),
      });
      if (config.secret) headers['webhook-signature'] = standardWebhookSignature(config.secret, message.deliveryId, timestamp, body);
      await callPlatform({
        platform: 'webhook',
        url: config.url,
        headers,
        body,
        signal: message.signal,
        secrets: config.secret ? [config.secret] : [],
        errorText: (b) => (typeof b === 'object' && b ? (b.error ?? b.message) : undefined),
      });
      await message.onPartSent?.(0);
      return {};
    },
  };
}
