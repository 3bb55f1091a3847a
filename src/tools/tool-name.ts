import { createHash } from 'node:crypto';

/** OpenAI's rule for a function tool's name (and most providers'): `^[A-Za-z0-9_-]{1,64}$` */
export const TOOL_NAME_MAX = 64;
const ILLEGAL = /[^A-Za-z0-9_-]/g;
const HASH_CHARS = 8;

const shortHash = (server: string, tool: string) => createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, HASH_CHARS);

/**
 * The name the model sees for a server's tool: `<server>__<tool>`, any other character than
 * letters, digits, `_` and `-` made `_`. A name past 64 characters is cut and ends in a short
 * hash of the original, so it stays the same from one listing to the next and two long names
 * sharing their first 55 characters still differ. `hashed` always adds the hash: for a tool whose
 * readable name another tool of its server already has (`a.b` and `a_b`).
 */
export function toolName(server: string, tool: string, hashed = false): string {
  const readable = `${server}__${tool}`.replace(ILLEGAL, '_');
  if (!hashed && readable.length <= TOOL_NAME_MAX) return readable;
  return `${readable.slice(0, TOOL_NAME_MAX - HASH_CHARS - 1)}_${shortHash(server, tool)}`;
}
