/**
 * What keeps secrets out of the log: any value under one of these keys, at the top of a logged
 * object or up to two levels down (`{ token }`, `{ config: { apiKey } }`, `{ a: { b: { secret } } }`),
 * is written as `[redacted]`. Request bodies and payload values are never passed to the logger in
 * the first place (the access line records sizes; errors are logged by kind, see log-detail.ts).
 */
export const REDACTED_KEYS = [
  'token',
  'apiKey',
  'key',
  'password',
  'secret',
  'authorization',
  'botToken',
  'accessToken',
  'appPassword',
  'refreshToken',
  'clientSecret',
  'pushToken',
];

export const CENSORED = '[redacted]';

const SECRET_KEYS = new Set(REDACTED_KEYS);
/** the logged object and two levels below it, as pino's `*.*.key` paths reached before */
const MAX_DEPTH = 3;

/**
 * The object to log with its secrets censored: the same object when it holds none (the common
 * case: no copy), else a copy with each secret replaced, the objects around it copied and the
 * rest shared. A walk of the few keys a herald log line has, instead of pino's `redact`, whose
 * wildcard paths ran a compiled redactor over every value of every line.
 */
export function censorSecrets<T>(value: T, depth = 1): T {
  // a buffer's bytes are no keys to look at (and would be walked one index at a time)
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const inner = source[key];
    const censored = SECRET_KEYS.has(key) && inner !== undefined ? CENSORED : censorSecrets(inner, depth + 1);
    if (censored === inner) continue;
    copy ??= copyOf(source);
    copy[key] = censored;
  }
  return (copy ?? value) as T;
}

/** a shallow copy that stays what it was: an array, an error (its message and stack kept), an object */
function copyOf(source: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(source)) return [...source] as unknown as Record<string, unknown>;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(source) as object | null) as Record<string, unknown>, source);
  if (source instanceof Error) Object.assign(copy, { message: source.message, stack: source.stack });
  return copy;
}
