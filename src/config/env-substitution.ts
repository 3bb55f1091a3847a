const REFERENCE = /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** where a value sits, as a chain of keys: the dotted path is only spelled out for a fault */
interface At {
  parent: At | undefined;
  key: string | number;
}

function spell(at: At | undefined, prefix: string): string {
  const keys: (string | number)[] = [];
  for (let a = at; a; a = a.parent) keys.push(a.key);
  let out = prefix;
  for (const key of keys.reverse()) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key;
  return out || '(root)';
}

/**
 * `${NAME}` in any string value is replaced by the environment variable NAME.
 * Substitution happens on parsed values, never on the raw text, so a variable cannot inject structure.
 * A missing variable is a fault naming it and the key that used it; `$${X}` stays a literal `${X}`.
 * A part without any `${` is returned as it is, not copied (a config of a thousand mappings is mostly that).
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, faults: string[], at = ''): unknown {
  return substitute(value, env, faults, at, undefined);
}

function substitute(value: unknown, env: NodeJS.ProcessEnv, faults: string[], prefix: string, at: At | undefined): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(REFERENCE, (whole, escape: string, name: string) => {
      if (escape) return whole.slice(1);
      const found = env[name];
      if (found === undefined) {
        faults.push(`${spell(at, prefix)}: environment variable ${name} is not set`);
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = substitute(value[i], env, faults, prefix, { parent: at, key: i });
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  if (value && typeof value === 'object') {
    let out: [string, unknown][] | undefined;
    const entries = Object.entries(value);
    for (let i = 0; i < entries.length; i++) {
      const [k, v] = entries[i]!;
      const item = substitute(v, env, faults, prefix, { parent: at, key: k });
      if (item !== v) (out ??= entries.map(([key, original]) => [key, original]))[i]![1] = item;
    }
    // a new object only where something was substituted (own keys such as a JSON "__proto__" kept as keys)
    return out ? Object.fromEntries(out) : value;
  }
  return value;
}
