import { HeraldError } from '../../errors.js';
import { bodyFormatOf, parseMultipart, parseUrlEncoded } from '../../mappings/form-payload.js';
import { parseJsonBody } from '../read-body.js';

/** the built-in endpoints, whose bodies are fixed JSON shapes */
const JSON_ONLY = new Set(['wake', 'agent']);

/**
 * A hook body as its mapping's payload: JSON by default; for mapped hooks also form bodies
 * (Twilio, Slack, Mailgun, email relays), whose fields become the payload. `/wake` and `/agent`
 * stay JSON: a form sent there is 415, not a confusing "invalid JSON".
 */
export async function parseHookPayload(path: string, bytes: Uint8Array, contentType: string | undefined): Promise<unknown> {
  const format = bodyFormatOf(contentType);
  if (format === 'json') return parseJsonBody(bytes);
  if (JSON_ONLY.has(path)) {
    throw new HeraldError('HERALD_UNSUPPORTED_MEDIA_TYPE', `/${path} takes a JSON body (form bodies are for mapped hooks)`);
  }
  if (format === 'form') return parseUrlEncoded(Buffer.from(bytes).toString('utf8'));
  return parseMultipart(bytes, contentType!);
}
