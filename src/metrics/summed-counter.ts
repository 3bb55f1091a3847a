import { Counter, type CounterConfiguration, type LabelValues } from 'prom-client';

/** one label set's increments since /metrics was last read */
export interface CountCell {
  n: number;
}

/**
 * A labelled counter whose increments are summed in memory and handed to prom-client when the
 * metrics are read (its `collect`): prom-client hashes and checks the labels on every `inc`, which
 * a request or a run would pay several times over. Here an increment is `cell.n += value` on a
 * cell the caller keeps per label set; what /metrics shows is the same.
 */
export class SummedCounter<L extends string> {
  readonly counter: Counter<L>;
  private readonly cells: { labels: LabelValues<L>; cell: CountCell }[] = [];

  constructor(config: Omit<CounterConfiguration<L>, 'collect'>) {
    const cells = this.cells;
    this.counter = new Counter<L>({
      ...config,
      collect() {
        for (const { labels, cell } of cells) {
          if (cell.n === 0) continue;
          this.inc(labels, cell.n);
          cell.n = 0;
        }
      },
    });
  }

  /** a new cell for `labels`, for the caller to keep (cells of one label set add up); its series shows once counted */
  cell(labels: LabelValues<L>): CountCell {
    const cell = { n: 0 };
    this.cells.push({ labels, cell });
    return cell;
  }
}
