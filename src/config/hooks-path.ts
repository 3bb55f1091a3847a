/**
 * `hooks.path` as written loosely (`hooks`, `/hooks/`, `hooks///`): a leading slash is added,
 * repeated slashes collapse and trailing ones go, as OpenClaw does. `/` stays `/`, and is
 * refused by the checks (it would shadow every route).
 */
export function normaliseHooksPath(raw: string): string {
  const collapsed = `/${raw.trim()}`.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/+$/, '') || '/' : collapsed;
}

/** The prefix hook URLs are built on: `hooks.path` without its trailing slash (`/` becomes the empty string). */
export function hooksPrefix(hooksPath: string): string {
  return hooksPath.replace(/\/+$/, '');
}
