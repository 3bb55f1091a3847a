const REFERENCE = /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The keys down to the value being substituted, pushed and popped on the way down (one array for
 * the whole walk, not an object per value): the dotted path is only spelled out for a fault.
 */
type At = (string | number)[];

function spell(at: At, prefix: string): string {
  let out = prefix;
  for (const key of at) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key;
  return out || '(root)';
}

/**
 * `${NAME}` in any string value is replaced by the environment variable NAME.
 * Substitution happens on parsed values, never on the raw text, so a variable cannot inject structure.
 * A missing variable is a fault naming it and the key that used it; `$${X}` stays a literal `${X}`.
 * A part without any `${` is returned as it is, not copied (a config of a thousand mappings is mostly that).
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, faults: string[], at = ''): unknown {
  return substitute(value, env, faults, at, []);
}

function substitute(value: unknown, env: NodeJS.ProcessEnv, faults: string[], prefix: string, at: At): unknown {
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
      at.push(i);
      const item = substitute(value[i], env, faults, prefix, at);
      at.pop();
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  if (value && typeof value === 'object') {
    let out: [string, unknown][] | undefined;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const original = (value as Record<string, unknown>)[keys[i]!];
      at.push(keys[i]!);
      const item = substitute(original, env, faults, prefix, at);
      at.pop();
      if (item !== original) (out ??= Object.entries(value))[i]![1] = item;
    }
    // a new object only where something was substituted (own keys such as a JSON "__proto__" kept as keys)
    return out ? Object.fromEntries(out) : value;
  }
  return value;
}
