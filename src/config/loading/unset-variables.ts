import { splitFault } from './split-fault.js';

// `<key>: environment variable NAME is not set`, a mapping file's key followed by its line and column
const UNSET = /^environment variable (\w+) is not set( \(line \d+, column \d+\))?$/;

/** the variable a fault says is unset, with the key that uses it; undefined for any other fault */
export function unsetVariable(fault: string): { variable: string; key: string } | undefined {
  const { path, message } = splitFault(fault);
  const [, variable, position] = UNSET.exec(message) ?? [];
  return path && variable ? { variable, key: `${path}${position ?? ''}` } : undefined;
}

/**
 * Each unset variable as one line naming every key that uses it, where its first fault stood
 * (`environment variable X is not set (used by a, b)`): the words of `herald config check`,
 * `herald serve` and `herald hooks send` alike. Other faults pass as they are.
 */
export function groupUnsetVariables(faults: readonly string[]): string[] {
  const keys = new Map<string, string[]>();
  const lines: (string | { variable: string })[] = [];
  for (const fault of faults) {
    const unset = unsetVariable(fault);
    if (!unset) {
      lines.push(fault);
      continue;
    }
    if (!keys.has(unset.variable)) lines.push({ variable: unset.variable });
    keys.set(unset.variable, [...(keys.get(unset.variable) ?? []), unset.key]);
  }
  return lines.map((line) => (typeof line === 'string' ? line : `environment variable ${line.variable} is not set (used by ${keys.get(line.variable)!.join(', ')})`));
}
