import { isStdioServer, type McpServerConfig } from '../../config/sections/tools-schema.js';

/** what a configured secret becomes in a server's text */
export const MASK = '[secret]';
/**
 * A value shorter than this is not taken for a secret: masking `1` or `true` (an env flag) would
 * garble every text, and a credential is never that short.
 */
const MIN_SECRET_CHARS = 8;

/** a text as herald shows or logs it, with the server's configured secrets masked */
export type SecretMask = (text: string) => string;

/**
 * The secrets one server's config holds: its headers' values (and the credential after an
 * `Authorization` scheme: `Bearer <token>`) for an HTTP server, its env values for a stdio one.
 * A server may echo them in what it writes (a 401 body repeating the Authorization header, a
 * token printed on stderr), and herald shows that text in the server's last error, its log and
 * the model's tool results: every such text goes through the mask first.
 */
export function secretMask(config: McpServerConfig): SecretMask {
  const values = isStdioServer(config) ? Object.values(config.env) : Object.values(config.headers);
  const secrets = new Set<string>();
  for (const value of values) {
    secrets.add(value.trim());
    // `Bearer abc`, `Basic abc`, `token abc`: the credential alone, which a server may echo without its scheme
    const credential = /^\S+\s+(\S+)$/.exec(value.trim())?.[1];
    if (credential) secrets.add(credential);
  }
  // longest first: a secret containing another is masked whole
  const list = [...secrets].filter((s) => s.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  if (!list.length) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of list) if (out.includes(secret)) out = out.split(secret).join(MASK);
    return out;
  };
}
