/**
 * What a template prints where a field it reads is absent: a word for nothing (`undefined`,
 * `null`), punctuation left around an empty hole (" in , status ,", "()", `""`, "<@>"), a value
 * repeated as its own fallback ("cus_X (cus_X)"), two spaces where a word was, or a line or
 * text ending in whitespace ("Alerts "). An agent reads each as a fact, so no rendered name,
 * message or text may hold one.
 */
const DANGLING: [RegExp, string][] = [
  [/\bundefined\b/, '"undefined"'],
  [/\bnull\b/, '"null"'],
  [/ ,/, 'a space before a comma'],
  [/: ,|,\s*,/, 'an empty item in a list'],
  [/\(\s*\)|\[\s*\]|<@?>|""/, 'empty brackets or quotes'],
  [/(^|\s)(\S+) \(\2\)/, 'a value repeated in brackets'],
  [/\S {2,}\S/, 'two spaces where a word was'],
  [/[ \t]$/m, 'a line ending in whitespace'],
  [/\s$/, 'whitespace at its end'],
];

/**
 * The faults of one rendered field, each naming the field and quoting the text. `quoted`: the
 * request's own strings, which are the sender's words ("TypeError: x is undefined") and are
 * taken out of the text before it is read.
 */
export function danglingText(field: string, text: unknown, quoted: readonly string[] = []): string[] {
  if (typeof text !== 'string') return [];
  const own = quoted.filter((s) => DANGLING.some(([pattern]) => pattern.test(s))).sort((a, b) => b.length - a.length);
  const read = own.reduce((t, s) => t.split(s).join('…'), text);
  return DANGLING.filter(([pattern]) => pattern.test(read)).map(([, what]) => `${field} has ${what}: ${JSON.stringify(text)}`);
}

/** Every string of a request body, a form's values and JSON held in a string (Slack's `payload` field) included. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') {
    const nested = /^\s*[[{]/.test(value) ? tryJson(value) : undefined;
    return [value, ...(nested === undefined ? [] : stringsOf(nested))];
  }
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The rendered fields of a fixture's outcome: one action's, or each of several actions'. */
export function renderedFields(actual: Record<string, unknown>): [string, unknown][] {
  const actions = Array.isArray(actual.actions) ? (actual.actions as Record<string, unknown>[]) : [actual];
  return actions.flatMap((action, i) => (['name', 'message', 'text'] as const).map((key) => [actions.length > 1 ? `actions[${i}].${key}` : key, action[key]] as [string, unknown]));
}
