import type { Registry } from 'prom-client';
import { SummedCounter, type CountCell } from './summed-counter.js';
import { SummedHistogram, type HistogramCell } from './summed-histogram.js';

/** the surface label's values; the HTTP layer decides a request's surface (a surface without a label of its own, the console, counts as other) */
export type Surface = 'hooks' | 'v1' | 'admin' | 'other';

/** any other method a client invents is one label value, not one each */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Request counters and latencies by surface, method and status. Label values are few
 * (4 surfaces, 8 methods, the statuses herald answers with, the configured mapping ids), and
 * their cells are kept, so a request costs map lookups and additions (the counters and the
 * histogram are summed on their cells, see SummedCounter and SummedHistogram).
 */
export class HttpMetrics {
  private readonly requests: SummedCounter<'surface' | 'method' | 'status'>;
  private readonly duration: SummedHistogram<'surface' | 'method'>;
  private readonly hooks: SummedCounter<'mapping' | 'outcome'>;
  private readonly requestChildren = new Map<string, Map<string, Map<number, CountCell>>>();
  private readonly durationCells = new Map<string, Map<string, HistogramCell>>();
  private readonly hookChildren = new Map<string, Map<string, CountCell>>();

  constructor(registry: Registry) {
    this.requests = new SummedCounter({
      name: 'herald_http_requests_total',
      help: 'HTTP requests answered, by surface (hooks, v1, admin, other), method and status.',
      labelNames: ['surface', 'method', 'status'],
      registers: [registry],
    });
    this.duration = new SummedHistogram({
      name: 'herald_http_request_duration_seconds',
      help: 'Time from a request arriving to its response being ready (a stream: to its first byte), by surface and method.',
      labelNames: ['surface', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    this.hooks = new SummedCounter({
      name: 'herald_hook_requests_total',
      help: 'Webhook requests by mapping id ("none" before one matched) and outcome (accepted, skipped, refused, unmatched, invalid, failed).',
      labelNames: ['mapping', 'outcome'],
      registers: [registry],
    });
  }

  /** one answered request on `requestSurface` (request-surface.ts decides it); `mappingId` only for the webhook surface */
  record(requestSurface: Surface | 'console', rawMethod: string, status: number, seconds: number, mappingId: string | undefined): void {
    const surface = requestSurface === 'console' ? 'other' : requestSurface;
    const method = KNOWN_METHODS.has(rawMethod) ? rawMethod : 'other';
    let byMethod = this.requestChildren.get(surface);
    if (!byMethod) this.requestChildren.set(surface, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let counter = byStatus.get(status);
    if (!counter) byStatus.set(status, (counter = this.requests.cell({ surface, method, status: String(status) })));
    counter.n++;

    let histograms = this.durationCells.get(surface);
    if (!histograms) this.durationCells.set(surface, (histograms = new Map()));
    let histogram = histograms.get(method);
    if (!histogram) histograms.set(method, (histogram = this.duration.cell({ surface, method })));
    histogram.observe(seconds);

    if (surface === 'hooks') this.recordHook(mappingId ?? 'none', hookOutcome(status));
  }

  private recordHook(mapping: string, outcome: string): void {
    let byOutcome = this.hookChildren.get(mapping);
    if (!byOutcome) this.hookChildren.set(mapping, (byOutcome = new Map()));
    let counter = byOutcome.get(outcome);
    if (!counter) byOutcome.set(outcome, (counter = this.hooks.cell({ mapping, outcome })));
    counter.n++;
  }
}

/** what a webhook caller got, in words an alert can use */
export function hookOutcome(status: number): string {
  if (status === 204) return 'skipped';
  if (status < 300) return 'accepted';
  if (status === 401 || status === 403 || status === 429) return 'refused';
  if (status === 404) return 'unmatched';
  if (status < 500) return 'invalid';
  return 'failed';
}
