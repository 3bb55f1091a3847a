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
