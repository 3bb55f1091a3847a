/**
 * A tool call's arguments as a person may see them: in an approval's notice (a chat channel,
 * less guarded than herald), the admin API and the console. Values that look secret become
 * `••••`, by their key (`apiKey`, `Authorization`, `db_password`) or by their shape (a GitHub,
 * OpenAI or Slack token, a JWT, a long run of base64 or hex), also inside longer text. It errs on
 * the side of hiding: a commit SHA (40 hex digits) is masked too.
 */
export const MASK = '••••';

/** a key whose value is secret: any of these inside it, whatever its case or separators */
const SECRET_KEY_PARTS = /token|secret|passw|pwd|authorization|credential|cookie|apikey|privatekey|signature/;
/** or one of its words is `key` (`api_key`, `sshKey`, `x-api-key`), not `keyword` nor `monkey` */
const KEY_WORD = /^(?:key|keys)$/;

export function isSecretKey(name: string): boolean {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (SECRET_KEY_PARTS.test(flat)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => KEY_WORD.test(w));
}

/** the documented shapes of common API tokens (a known prefix, then the secret) */
const PREFIXED = /^(?:gh[pousr]_|github_pat_|glpat-|sk-|sk_live_|sk_test_|rk_live_|xox[abposre]-|xapp-|AKIA|ASIA|AIza|ya29\.|hf_|npm_|pypi-)[A-Za-z0-9_\-.]{8,}$/;
const JWT = /^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*$/;
const HEX = /^[0-9a-fA-F]{32,}$/;
const BASE64 = /^[A-Za-z0-9+/_-]{32,}={0,2}$/;

/**
 * One word that looks like a token. A long base64 run counts only with upper and lower case
 * letters and digits mixed, as random bytes have them: a long identifier or a word joined by
 * dashes (`deploy-production-cluster-2026`) does not.
 */
export function looksLikeToken(word: string): boolean {
  if (PREFIXED.test(word) || JWT.test(word) || HEX.test(word)) return true;
  if (!BASE64.test(word) || !/[a-z]/.test(word) || !/[A-Z]/.test(word) || !/[0-9]/.test(word)) return false;
  // a path (`/repos/OpenAI/node/issues/123`) has words between its slashes; random bytes seldom do
  return !word.includes('/') || !word.split('/').some((part) => /^[a-z]{4,}$/.test(part));
}

/** runs of characters a token is made of; each is judged whole */
const WORDS = /[A-Za-z0-9+/=_.\-]{12,}/g;
/** `password=…`, `token: …` in text (a query string, a header line, a config snippet) */
const NAMED_IN_TEXT = /\b([A-Za-z][\w-]*)(\s*[=:](?!\/\/)\s*)("?)([^\s"&,;]+)/g;
/** the password of `scheme://user:password@host` */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi;
/** `Bearer <token>`, `Basic <credentials>` (not `Basic setup`: a plain lowercase word is prose) */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9+/=_.~-]{8,})/g;
const AUTH_SCHEME_NAME = /^(?:Bearer|Basic|Token)$/;

/** a string with every secret-looking part masked */
export function maskText(text: string): string {
  return text
    .replace(URL_PASSWORD, (_m, head: string, _pw: string, at: string) => `${head}${MASK}${at}`)
    .replace(AUTH_SCHEME, (m, scheme: string, space: string, credential: string) => (scheme !== 'Bearer' && /^[a-z]+$/.test(credential) ? m : `${scheme}${space}${MASK}`))
    .replace(NAMED_IN_TEXT, (m, name: string, sep: string, quote: string, value: string) =>
      isSecretKey(name) && value !== MASK && !AUTH_SCHEME_NAME.test(value) ? `${name}${sep}${quote}${MASK}${/[.!?)]+$/.exec(value)?.[0] ?? ''}` : m,
    )
    .replace(WORDS, (word) => {
      // a word may end in punctuation of its sentence (`… ghp_abc.`): judge it without
      const bare = word.replace(/[.=_-]+$/, '');
      return looksLikeToken(bare) || looksLikeToken(word) ? MASK + word.slice(bare.length).replace(/^=+/, '') : word;
    });
}

/** a JSON value with secret keys' values and secret-looking strings masked; the shape stays */
export function maskValue(value: unknown): unknown {
  if (typeof value === 'string') return maskText(value);
  if (Array.isArray(value)) return value.map(maskValue);
  if (value && typeof value === 'object') {
    // a flag (`use_token: true`) or nothing says no secret; anything else under a secret key is one
    const hidden = (v: unknown) => v !== null && v !== '' && typeof v !== 'boolean';
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretKey(k) && hidden(v) ? MASK : maskValue(v)]));
  }
  return value;
}

/**
 * A call's arguments (JSON text, as the model wrote them) masked: the JSON value, or, when the
 * model wrote something that is not JSON, the text masked.
 */
export function maskArguments(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return maskText(text);
  }
  return maskValue(parsed);
}
