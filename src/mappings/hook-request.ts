/** One webhook call, as the mappings engine sees it. */
export interface HookRequest {
  /** the part of the URL after hooks.path, slashes trimmed: "wake", "github/push" */
  path: string;
  /** the parsed JSON body (any JSON value; `{}` for an empty body) */
  payload: unknown;
  /** lower-cased header names */
  headers: Record<string, string>;
  query: Record<string, string>;
  url: string;
  /** its signature was verified by the mapping that takes it (its `auth`), not just the hook token: only such a request's runs may use `tools.grant` */
  signed?: boolean;
}

export function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** deeper payloads are refused (400): templates, predicates and copies walk them recursively */
export const MAX_PAYLOAD_DEPTH = 64;

/**
 * Why a parsed payload cannot be mapped, if it cannot: nested deeper than MAX_PAYLOAD_DEPTH, or
 * holding a number JSON allows but JavaScript cannot represent (`1e400` parses to Infinity,
 * which JSONata refuses). The recursion stops at MAX_PAYLOAD_DEPTH, so no payload can exhaust the
 * stack; it allocates nothing per node (this runs for every webhook request).
 */
export function payloadFault(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'payload holds a number out of range';
  if (!value || typeof value !== 'object') return undefined;
  if (depth + 1 > MAX_PAYLOAD_DEPTH) return `payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const fault = payloadFault(value[i], depth + 1);
      if (fault) return fault;
    }
    return undefined;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const fault = payloadFault(object[key], depth + 1);
    if (fault) return fault;
  }
  return undefined;
}
