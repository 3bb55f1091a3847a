import { HeraldError } from '../../errors.js';

/** A file part of a multipart body as a mapping sees it: what it is, never its bytes (nothing is written to disk). */
export interface FormFile {
  filename: string;
  size: number;
  type: string;
}

export type BodyFormat = 'json' | 'form' | 'multipart';

/** how a hook body is read, from its Content-Type (anything else, or none, is JSON as before) */
export function bodyFormatOf(contentType: string | undefined): BodyFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  return 'json';
}

/**
 * Adds one field the way form senders mean repeated keys: the second value turns the field into
 * an array. Own properties by definition, so a field named `__proto__` is data, not a prototype.
 */
function addField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (!Object.hasOwn(target, key)) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    return;
  }
  const current = target[key];
  target[key] = Array.isArray(current) ? [...current, value] : [current, value];
}

/** `a=1&b=2&b=3` -> `{ a: "1", b: ["2", "3"] }` (Twilio, Slack slash commands, Mailgun's simple posts) */
export function parseUrlEncoded(text: string): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) addField(payload, key, value);
  return payload;
}

/**
 * multipart/form-data: text fields as strings, files as `{ filename, size, type }`; the parts are
 * read from the body already held in memory under hooks.maxBodyBytes, and the file bytes dropped.
 */
export async function parseMultipart(body: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    // the platform's own multipart parser (undici), over bytes already read and limited
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new HeraldError('HERALD_BAD_REQUEST', 'invalid multipart/form-data body (check its boundary)');
  }
  const payload: Record<string, unknown> = {};
  for (const [key, value] of form) {
    if (typeof value === 'string') addField(payload, key, value);
    else addField(payload, key, { filename: value.name, size: value.size, type: value.type || 'application/octet-stream' } satisfies FormFile);
  }
  return payload;
}
