import { Counter, Histogram, type Registry } from 'prom-client';

/** what became of one fire, as its record says (a fire still `claimed` is not counted yet) */
export type FireMetricOutcome = 'dispatched' | 'skipped' | 'missed' | 'failed';

/**
 * Schedules in /metrics: each fire by job and outcome, and how late fires start. The job label is
 * bounded by the jobs an operator made; the lag has no job label, so 10,000 jobs add no series to it.
 */
export class ScheduleMetrics {
  private readonly fires: Counter<'schedule' | 'outcome'>;
  private readonly lag: Histogram;

  constructor(registry: Registry) {
    this.fires = new Counter({
      name: 'herald_schedule_fires_total',
      help: 'Fires of scheduled jobs, by job id and outcome (dispatched: its run queued or event added; skipped: overlap; missed: catchUp false; failed), run-now fires included.',
      labelNames: ['schedule', 'outcome'],
      registers: [registry],
    });
    this.lag = new Histogram({
      name: 'herald_schedule_lag_seconds',
      help: 'Seconds from a fire\'s due time to its start (the moment herald made its run or event), for fires of the schedule (not run-now).',
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    });
  }

  /** one fire's outcome; its lag counts when it started (dispatched or failed), and `lagMs` is undefined for a run now */
  fired(schedule: string, outcome: FireMetricOutcome, lagMs?: number): void {
    this.fires.inc({ schedule, outcome });
    if (lagMs !== undefined && (outcome === 'dispatched' || outcome === 'failed')) this.lag.observe(Math.max(0, lagMs) / 1000);
  }
}
