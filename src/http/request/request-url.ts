import type { IncomingMessage } from 'node:http';
import { BoundedMemo } from '../../utils/bounded-memo.js';

/**
 * A Host the WHATWG URL parser keeps exactly as sent: lower-case name labels ending in a label
 * that is not a number (all digits, or `0x` and hex digits: such a name would be read as an IPv4
 * address), none of them punycode (`xn--`, checked apart), or a dotted quad in canonical form;
 * then a port without a leading zero (URL drops a default one, checked apart).
 */
const PLAIN_HOST = /^(?:(?:[a-z0-9-]+\.)*(?!0x[0-9a-f]*(?::|$))[a-z0-9-]*[a-z-][a-z0-9-]*|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))(?::[1-9]\d{0,4})?$/;

/**
 * A request target URL keeps as sent: path and query of characters it neither percent-encodes nor
 * reads otherwise (no space, quote, `#`, `<`, `>`, backslash, backtick, braces, control or
 * non-ASCII character), with no dot segment, spelt plainly or as `%2e`.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%|^[\]]*$/;
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)/i;

/**
 * The URL as @hono/node-server makes it for hono (so signatures over it agree), or undefined when
 * it would refuse it. The common request (a plain Host and target, as senders send them) is
 * joined as is, which is what the URL parser returns for it; anything else goes through the parser.
 */
export function absoluteUrl(incoming: IncomingMessage, target: string): string | undefined {
  const host = incoming.headers.host;
  if (!host) return undefined;
  const https = (incoming.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const scheme = https ? 'https' : 'http';
  if ((https ? plainHttpsHosts : plainHttpHosts).get(host, https ? plainHttpsHost : plainHttpHost) && plainTargets.get(target, plainTarget)) return `${scheme}://${host}${target}`;
  return parsedUrl(scheme, host, target);
}

/** a Host the parser keeps as sent over `scheme` (PLAIN_HOST, no punycode, no default port, a port within range) */
function plainHost(host: string, defaultPort: string): boolean {
  if (!PLAIN_HOST.test(host) || host.includes('xn--') || host.endsWith(defaultPort)) return false;
  const port = host.lastIndexOf(':');
  return port === -1 || Number(host.slice(port + 1)) <= 65535;
}
const plainHttpHost = (host: string) => plainHost(host, ':80');
const plainHttpsHost = (host: string) => plainHost(host, ':443');
const plainTarget = (target: string) => PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target);

/**
 * Each verdict remembered by its text: clients send the same Host and request target on every
 * call, and the checks' regular expressions were most of a request URL's cost. Bounded by what
 * the texts weigh, as a stream of ever-different ones must not grow them.
 */
const plainHttpHosts = new BoundedMemo<string, boolean>(64 * 1024, (host) => host.length);
const plainHttpsHosts = new BoundedMemo<string, boolean>(64 * 1024, (host) => host.length);
const plainTargets = new BoundedMemo<string, boolean>(256 * 1024, (target) => target.length);

/** the URL the WHATWG parser makes of the request, or undefined when it refuses it or reads another host than sent */
export function parsedUrl(scheme: 'http' | 'https', host: string, target: string): string | undefined {
  try {
    const url = new URL(`${scheme}://${host}${target}`);
    if (url.hostname.length !== host.length && url.hostname !== host.replace(/:\d+$/, '')) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** a URL or request target without its query: a cut, not a parse */
export function withoutQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}
