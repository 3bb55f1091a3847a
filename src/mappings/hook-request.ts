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
}

export function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** deeper payloads are refused (400): templates, predicates and copies walk them recursively */
export const MAX_PAYLOAD_DEPTH = 64;

/**
 * Why a parsed payload cannot be mapped, if it cannot: nested deeper than MAX_PAYLOAD_DEPTH, or
 * holding a number JSON allows but JavaScript cannot represent (`1e400` parses to Infinity,
 * which JSONata refuses). Walked without recursion.
 */
export function payloadFault(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'number' && !Number.isFinite(node)) return 'payload holds a number out of range';
    if (!node || typeof node !== 'object') continue;
    if (depth + 1 > MAX_PAYLOAD_DEPTH) return `payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`;
    for (const inner of Object.values(node)) stack.push([inner, depth + 1]);
  }
  return undefined;
}
