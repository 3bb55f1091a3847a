import { bodyFormatOf, parseMultipart, parseUrlEncoded } from '../../mappings/payload/form-payload.js';
import { HeraldError } from '../../errors.js';
import { parseExactJson } from '../../utils/exact-json.js';

/** the built-in endpoints, whose bodies are fixed JSON shapes */
const JSON_ONLY = new Set(['wake', 'agent']);

/**
 * A hook body as its mapping's payload: JSON by default; for mapped hooks also form bodies
 * (Twilio, Slack, Mailgun, email relays), whose fields become the payload. `/wake` and `/agent`
 * stay JSON whatever the Content-Type. JSON integers beyond 2^53 are read as strings of
 * their exact digits (parseExactJson), so templates, transforms, session and idempotency keys
 * see the sender's id, not a rounded one. `curl -d '{...}'` labels JSON as a form
 * (application/x-www-form-urlencoded is its default), so a "form" body that is a JSON object or
 * array is read as the JSON it is: no real form body starts with `{` or `[`.
 * Parsed at once, but for a multipart body, whose promise is returned (a JSON value is never one).
 */
export function parseHookPayload(path: string, bytes: Uint8Array, contentType: string | undefined): unknown {
  const format = JSON_ONLY.has(path) ? 'json' : bodyFormatOf(contentType);
  if (format === 'json') return parseHookJson(bytes);
  if (format === 'form') {
    const text = Buffer.from(bytes).toString('utf8');
    if (/^\s*[[{]/.test(text)) {
      try {
        return parseExactJson(text);
      } catch {
        // not JSON after all: read as the form it says it is
      }
    }
    return parseUrlEncoded(text);
  }
  return parseMultipart(bytes, contentType!);
}

/** a JSON body (empty: {}), its integers exact; 400 when it is not JSON */
function parseHookJson(bytes: Uint8Array): unknown {
  // a view of the same bytes, not a copy (Buffer.from(Uint8Array) copies)
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8').trim();
  if (!text) return {};
  try {
    return parseExactJson(text);
  } catch {
    throw new HeraldError('HERALD_INVALID_JSON', 'invalid JSON body');
  }
}
