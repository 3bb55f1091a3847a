import type { CompiledMapping } from '../../mappings/compiled-mapping.js';

/**
 * Header names that carry a credential or a signature: never retained. A name is dropped when it
 * contains any of these (x-gitlab-token, stripe-signature, x-hub-signature-256, x-api-key, ...).
 */
const SECRET_PARTS = ['authorization', 'token', 'secret', 'signature', 'cookie', 'api-key', 'apikey', 'password', 'auth'];

/** The headers worth keeping for a replay: everything but credentials, signatures and the mappings' own signature headers. */
export function retainableHeaders(headers: Record<string, string>, signedMappings: readonly CompiledMapping[] = []): Record<string, string> {
  const custom = new Set(
    signedMappings.map((m) => (m.definition?.auth as { header?: string } | undefined)?.header?.toLowerCase()).filter((h): h is string => !!h),
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (custom.has(lower) || SECRET_PARTS.some((part) => lower.includes(part))) continue;
    out[lower] = value;
  }
  return out;
}
