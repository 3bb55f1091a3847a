/** a request's server URL, checked against the operator's prefixes: where it may connect, or why not */
export type RemoteUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** in a path, an encoded `/`, `\` or `.`: a server that decodes it may reach a path outside the prefix */
const ENCODED_SEPARATOR = /%(?:2f|5c|2e)/i;

const effectivePort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/**
 * Whether a request's MCP `server_url` lies under one of `tools.remoteAllowlist`'s prefixes, so
 * no request can make herald connect where the operator did not say (no server-side request
 * forgery through the API). Both sides go through the WHATWG URL parser, the one fetch uses, so
 * what is compared is where fetch would connect: the scheme, the host as fetch resolves it
 * (lower-cased, IDN and IPv4 forms normalised), the effective port, and the path under the
 * prefix's path on a segment boundary (`/mcp` admits `/mcp` and `/mcp/x`, never `/mcpx`). A URL
 * with credentials in it, or whose path holds an encoded slash, backslash or dot, is refused.
 */
export function checkRemoteUrl(text: string, allowlist: readonly string[]): RemoteUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must be an http or https URL' };
  if (url.username || url.password) return { ok: false, reason: 'must not hold credentials (send them in headers)' };
  if (ENCODED_SEPARATOR.test(url.pathname)) return { ok: false, reason: 'must not hold an encoded /, \\ or . in its path' };
  url.hash = '';
  const allowed = allowlist.some((entry) => {
    const prefix = URL.canParse(entry) ? new URL(entry) : undefined;
    return prefix !== undefined && underPrefix(url, prefix);
  });
  return allowed ? { ok: true, url } : { ok: false, reason: 'is not under a prefix of tools.remoteAllowlist' };
}

function underPrefix(url: URL, prefix: URL): boolean {
  if (url.protocol !== prefix.protocol || url.hostname !== prefix.hostname || effectivePort(url) !== effectivePort(prefix)) return false;
  const base = prefix.pathname;
  if (base.endsWith('/')) return url.pathname.startsWith(base);
  return url.pathname === base || url.pathname.startsWith(`${base}/`);
}
