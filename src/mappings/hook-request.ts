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

/** Whether a parsed JSON value nests deeper than `max` objects or arrays (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const inner of Object.values(node)) stack.push([inner, depth + 1]);
  }
  return false;
}
