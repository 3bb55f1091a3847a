import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { AlertRecord, RunStatus } from '../store/port.js';
import type { StoreProbe } from '../store/contracts/store-probe.js';
import { AlertMetrics } from './alert-metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { ScheduleMetrics } from './schedule-metrics.js';
import { ToolMetrics, type ToolCallOutcome, type ToolCallSource, type ToolServerGaugeSource } from './tool-metrics.js';
import { TrafficMetrics } from './traffic-metrics.js';
import { UsageMetrics } from './usage-metrics.js';
import { registerStoreGauges } from './store-gauges.js';
import { SummedCounter, type CountCell } from './summed-counter.js';

/**
 * How often `nodejs_eventloop_lag_*` samples the event loop's delay (prom-client's default is
 * 10 ms). Each sample is a timer that wakes the process: at 10 ms an idle herald woke 100 times a
 * second (bench/idle.bench.ts), and a completion waiting on its upstream was woken in between.
 * 10 samples a second still catch every stall longer than 100 ms, and the p50/p99 of a 15 s
 * scrape interval rest on 150 of them.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export type FinishedRunStatus = Exclude<RunStatus, 'queued' | 'running'>;

/**
 * The metrics of one gateway, in a registry of its own: never prom-client's global one, since
 * one process may run several gateways (the tests do) and a name registered twice throws.
 */
export class HeraldMetrics {
  readonly registry = new Registry();
  readonly http: HttpMetrics;
  readonly alerts?: AlertMetrics;
  /** governed mappings' admissions: rate-limited, coalesced, waited */
  readonly traffic: TrafficMetrics;
  /** tokens, cost and budget refusals */
  readonly usage: UsageMetrics;
  /** MCP servers' health and tool calls */
  readonly tools: ToolMetrics;
  /** scheduled jobs' fires and their lag */
  readonly schedules: ScheduleMetrics;
  /** a run's end counted by status (summed, see SummedCounter) */
  private readonly runs: SummedCounter<'status'>;
  private readonly runsByStatus = new Map<FinishedRunStatus, CountCell>();
  private readonly heartbeatTurns: Counter<'outcome'>;

  /** `retainedBytes`: the bytes of retained webhook payloads, read from the store on each scrape; `parseWorkers`: the document parse threads alive */
  constructor(options: {
    probe: StoreProbe;
    retainedBytes?: () => Promise<number>;
    openAlerts?: () => Promise<AlertRecord[]>;
    parseWorkers?: () => number;
    /** the configured MCP servers' health, read on each scrape */
    toolServers?: () => ToolServerGaugeSource[];
  }) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.http = new HttpMetrics(this.registry);
    this.traffic = new TrafficMetrics(this.registry);
    this.usage = new UsageMetrics(this.registry);
    this.tools = new ToolMetrics(this.registry, options.toolServers);
    this.schedules = new ScheduleMetrics(this.registry);
    this.runs = new SummedCounter({
      name: 'herald_runs_total',
      help: 'Agent runs finished, by final status (succeeded, failed, timed_out).',
      labelNames: ['status'],
      registers: [this.registry],
    });
    // at 0 from the start, so rate() and alerts see the series before the first run
    for (const status of ['succeeded', 'failed', 'timed_out'] as const) this.runs.counter.inc({ status }, 0);
    this.heartbeatTurns = new Counter({
      name: 'herald_heartbeat_turns_total',
      help: 'Heartbeat turns of the main session, by outcome (succeeded, failed).',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    // present at 0 from the start, so rate() and alerts see the series before the first turn
    for (const outcome of ['succeeded', 'failed'] as const) this.heartbeatTurns.inc({ outcome }, 0);
    registerStoreGauges(this.registry, options.probe);
    if (options.openAlerts) this.alerts = new AlertMetrics(this.registry, options.openAlerts);
    const parseWorkers = options.parseWorkers;
    if (parseWorkers) {
      const gauge: Gauge = new Gauge({
        name: 'herald_knowledge_parse_workers',
        help: 'Document parse worker threads alive (each holds up to platform.knowledge.workerMemoryMb; one whose heap is still past an eighth of that after its parse ends then).',
        registers: [this.registry],
        collect() {
          gauge.set(parseWorkers());
        },
      });
    }
    const retainedBytes = options.retainedBytes;
    if (retainedBytes) {
      const gauge: Gauge = new Gauge({
        name: 'herald_retained_payload_bytes',
        help: 'Bytes of webhook request bodies retained for replay and backtests (hooks.retention).',
        registers: [this.registry],
        async collect() {
          gauge.set(await retainedBytes().catch(() => 0));
        },
      });
    }
  }

  runFinished(status: FinishedRunStatus): void {
    let cell = this.runsByStatus.get(status);
    if (!cell) this.runsByStatus.set(status, (cell = this.runs.cell({ status })));
    cell.n++;
  }

  /** a tool call's end, by the turn that made it; `seconds` when it was executed */
  toolCallFinished(server: string, tool: string, outcome: ToolCallOutcome, seconds?: number, source?: ToolCallSource): void {
    this.tools.finished(server, tool, outcome, seconds, source);
  }

  /** wraps the heartbeat's turn so each one is counted, whatever it ends in */
  /** `ran`: whether an outcome was a turn (not one left to the replica holding the heartbeat) */
  countHeartbeatTurns<A extends unknown[], R>(turn: (...args: A) => Promise<R>, ran: (outcome: R) => boolean = () => true): (...args: A) => Promise<R> {
    return async (...args) => {
      try {
        const outcome = await turn(...args);
        if (ran(outcome)) this.heartbeatTurns.inc({ outcome: 'succeeded' });
        return outcome;
      } catch (error) {
        this.heartbeatTurns.inc({ outcome: 'failed' });
        throw error;
      }
    };
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** the Prometheus text exposition of every metric */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
