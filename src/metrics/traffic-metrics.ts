import { Counter, type Registry } from 'prom-client';
import type { AdmittedRun } from '../store/port.js';

/** How governed mappings' runs were admitted (config: a mapping's concurrency, rate, coalesce), per mapping. */
export class TrafficMetrics {
  private readonly rateLimited: Counter<'mapping'>;
  private readonly coalesced: Counter<'mapping'>;
  private readonly waited: Counter<'mapping' | 'reason'>;

  constructor(registry: Registry) {
    this.rateLimited = new Counter({
      name: 'herald_runs_rate_limited_total',
      help: "Requests refused with 429 by their mapping's rate (overflow: reject), by mapping.",
      labelNames: ['mapping'],
      registers: [registry],
    });
    this.coalesced = new Counter({
      name: 'herald_runs_coalesced_total',
      help: "Events joined to an open run of their mapping's coalescing key instead of starting one, by mapping.",
      labelNames: ['mapping'],
      registers: [registry],
    });
    this.waited = new Counter({
      name: 'herald_runs_waited_total',
      help: "Runs admitted to wait before they may start, by mapping and reason (concurrency, rate, coalesce).",
      labelNames: ['mapping', 'reason'],
      registers: [registry],
    });
  }

  admitted(mapping: string, admitted: AdmittedRun): void {
    if (admitted.type === 'rate-limited') this.rateLimited.inc({ mapping });
    else if (admitted.type === 'coalesced') this.coalesced.inc({ mapping });
    else if (admitted.waitedFor) this.waited.inc({ mapping, reason: admitted.waitedFor });
  }
}
