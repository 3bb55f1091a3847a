/**
 * `${NAME}` in any string value is replaced by the environment variable NAME.
 * Substitution happens on parsed values, never on the raw text, so a variable cannot inject structure.
 * A missing variable is a fault naming it and the key that used it; `$${X}` stays a literal `${X}`.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, faults: string[], at = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, escape: string, name: string) => {
      if (escape) return whole.slice(1);
      const found = env[name];
      if (found === undefined) {
        faults.push(`${at || '(root)'}: environment variable ${name} is not set`);
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, faults, `${at}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, faults, at ? `${at}.${k}` : k)]),
    );
  }
  return value;
}
