import { bodyFormatOf, parseMultipart, parseUrlEncoded } from '../../mappings/form-payload.js';
import { parseJsonBody } from '../read-body.js';

/** the built-in endpoints, whose bodies are fixed JSON shapes */
const JSON_ONLY = new Set(['wake', 'agent']);

/**
 * A hook body as its mapping's payload: JSON by default; for mapped hooks also form bodies
 * (Twilio, Slack, Mailgun, email relays), whose fields become the payload. `/wake` and `/agent`
 * stay JSON whatever the Content-Type. `curl -d '{...}'` labels JSON as a form
 * (application/x-www-form-urlencoded is its default), so a "form" body that is a JSON object or
 * array is read as the JSON it is: no real form body starts with `{` or `[`.
 * Parsed at once, but for a multipart body, whose promise is returned (a JSON value is never one).
 */
export function parseHookPayload(path: string, bytes: Uint8Array, contentType: string | undefined): unknown {
  const format = JSON_ONLY.has(path) ? 'json' : bodyFormatOf(contentType);
  if (format === 'json') return parseJsonBody(bytes);
  if (format === 'form') {
    const text = Buffer.from(bytes).toString('utf8');
    if (/^\s*[[{]/.test(text)) {
      try {
        return JSON.parse(text);
      } catch {
        // not JSON after all: read as the form it says it is
      }
    }
    return parseUrlEncoded(text);
  }
  return parseMultipart(bytes, contentType!);
}
