/** a tool pattern of config: `*` matches any run of characters, everything else itself */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  const expressions = patterns.map((p) => new RegExp(`^${p.split('*').map(escape).join('.*')}$`));
  return (name) => expressions.some((e) => e.test(name));
}

const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
