import type { LabelValues, Registry } from 'prom-client';

/** a series' value as the registry reads it from a metric's `get()` (prom-client's typings name its type by an enum it does not use) */
interface SeriesValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** one label set's observations: a count per bucket (the last past every bound, +Inf), their sum and number */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export interface SummedHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** upper bounds, ascending */
  buckets: readonly number[];
  registers: Registry[];
}

/**
 * A labelled histogram whose observations are counted on cells the caller keeps per label set
 * (HistogramCell: a bucket's count, the sum), and read by the registry as prom-client's own
 * Histogram shows them: its `observe` hashes and checks the labels and writes its buckets by
 * name on every call, which every request paid. What /metrics shows is the same (SummedCounter
 * is the counters' twin).
 */
export class SummedHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: readonly number[];
  private readonly cells: HistogramCell[] = [];

  constructor(config: SummedHistogramConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.bounds = [...config.buckets];
    for (const registry of config.registers) registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** a new cell for `labels`, for the caller to keep (cells of one label set add up); its series shows once observed */
  cell(labels: LabelValues<L>): HistogramCell {
    const cell = new HistogramCell(labels as Record<string, string>, this.bounds);
    this.cells.push(cell);
    return cell;
  }

  /** the series as prom-client's Histogram writes them: cumulative buckets (`le` first), +Inf, sum and count, per label set */
  get(): { name: string; help: string; type: 'histogram'; values: SeriesValue[]; aggregator: 'sum' } {
    const bucket = `${this.name}_bucket`;
    const values: SeriesValue[] = [];
    for (const group of this.groups()) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += group.counts[i]!;
        values.push({ labels: { le, ...group.labels }, value: below, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf', ...group.labels }, value: group.count, metricName: bucket },
        { labels: { ...group.labels }, value: group.sum, metricName: `${this.name}_sum` },
        { labels: { ...group.labels }, value: group.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const cell of this.cells) {
      cell.counts.fill(0);
      cell.sum = 0;
      cell.count = 0;
    }
  }

  /** the observed cells' sums by label set (two cells of one set are one series) */
  private groups(): { labels: Readonly<Record<string, string>>; counts: Float64Array; sum: number; count: number }[] {
    const byKey = new Map<string, { labels: Readonly<Record<string, string>>; counts: Float64Array; sum: number; count: number }>();
    for (const cell of this.cells) {
      if (!cell.count) continue;
      const key = JSON.stringify(Object.entries(cell.labels).sort());
      const group = byKey.get(key);
      if (!group) {
        byKey.set(key, { labels: cell.labels, counts: Float64Array.from(cell.counts), sum: cell.sum, count: cell.count });
        continue;
      }
      cell.counts.forEach((n, i) => (group.counts[i]! += n));
      group.sum += cell.sum;
      group.count += cell.count;
    }
    return [...byKey.values()];
  }
}
