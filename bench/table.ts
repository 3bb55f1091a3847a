/** A plain-text table with right-aligned numeric columns, for benchmark output. */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => /^[\d.,%x -]*$/.test(String(r[i] ?? ''))));
  const line = (r: string[]) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.slice(1).map(line)].join('\n');
}

export const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
export const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);

/** the value at fraction `p` (0.5: the median, 1: the largest) of values sorted ascending; NaN of none */
export const percentile = (sorted: readonly number[], p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN);
