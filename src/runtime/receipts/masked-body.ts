import { parseExactJson } from '../../utils/exact-json.js';

/** what stands for a masked value in a retained body (as a recipient's credential is shown) */
export const MASKED = '…';

/**
 * A body to retain with the values of `fields` (top-level fields of a JSON object, a mapping's
 * `retainMasked`) replaced by `…`: each string value wherever its JSON literal occurs in the text,
 * so the rest of the body stays byte for byte as received (its numbers, its order, its spacing);
 * a body where that leaves a value behind (escaped otherwise, or not a string) is written anew
 * from its parse, each field `…`. A body that is not a JSON object has no such fields: kept as is.
 */
export function maskedBody(body: Uint8Array, fields: readonly string[]): Uint8Array {
  if (!fields.length) return body;
  const text = Buffer.from(body).toString('utf8');
  const parsed = objectOf(text);
  const present = parsed ? fields.filter((f) => Object.hasOwn(parsed, f) && parsed[f] !== MASKED) : [];
  if (!parsed || !present.length) return body;
  let masked = text;
  for (const field of present) {
    const value = parsed[field];
    if (typeof value === 'string' && value !== '') masked = masked.split(JSON.stringify(value)).join(JSON.stringify(MASKED));
  }
  const again = objectOf(masked);
  if (again && present.every((f) => again[f] === MASKED)) return Buffer.from(masked, 'utf8');
  return Buffer.from(JSON.stringify({ ...parsed, ...Object.fromEntries(present.map((f) => [f, MASKED])) }), 'utf8');
}

function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value = parseExactJson(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
