import type { DeliveryRecord, RunRecord, Store } from '../../store/port.js';
import { changeTopic } from '../operator/change-feed.js';
import { replyDisposition, type ReplyDisposition } from '../delivery/reply-delivery.js';
import type { RunWaiter } from './run-waiter.js';
import type { HeraldConfig } from '../../config/schema.js';

/**
 * OpenClaw's `completion` of a `/hooks/agent` call made with `waitForCompletion: true`: how the
 * run ended and what became of its reply, never the reply itself (`reply` only behind
 * `hooks.completionIncludesReply`).
 */
export interface RunCompletionReport {
  status: 'ok' | 'error' | 'skipped';
  replyDisposition: ReplyDisposition;
  delivered: boolean;
  deliveryAttempted: boolean;
  deliveryError?: 'delivery-failed';
  /** why a finished reply was not sent: `silent` (NO_REPLY), `heartbeat` (only HEARTBEAT_OK), `empty` */
  deliverySuppressionReason?: 'silent' | 'heartbeat' | 'empty';
  reply?: string;
}

export interface RunCompletionReporterDeps {
  store: Pick<Store, 'runs' | 'deliveries' | 'signals'>;
  runWaiter: Pick<RunWaiter, 'finishedBefore'>;
  /** read at each report, so a reload applies: `hooks.completionIncludesReply`, the ack rule, run and delivery limits */
  config: Pick<HeraldConfig, 'hooks' | 'heartbeat' | 'agents' | 'delivery'>;
  /** no channel is configured: a reply is never queued (the outbox's quiet mode) */
  noChannels: () => boolean;
}

/** past its own time limit, a run still gets this long to be claimed and to write its completion */
const COMPLETION_GRACE_MS = 10_000;

const SETTLED: ReadonlySet<DeliveryRecord['status']> = new Set(['delivered', 'failed', 'abandoned']);

/**
 * Waits for a run to finish (until `until`), then for its reply's first delivery attempt (the
 * outbox sends it apart from the run, so `delivered` is read once that attempt ended), both on the
 * store's change signals, never by polling.
 */
export class RunCompletionReporter {
  constructor(private readonly deps: RunCompletionReporterDeps) {}

  /** the report of a run just accepted, awaited for as long as its time limit (`timeoutSeconds`) allows */
  async report(runId: string, action: Pick<RunRecord['action'], 'timeoutSeconds'>): Promise<RunCompletionReport> {
    const until = Date.now() + (action.timeoutSeconds ?? this.deps.config.agents.defaults.timeoutSeconds) * 1000 + COMPLETION_GRACE_MS;
    const { config } = this.deps;
    const run = await this.deps.runWaiter.finishedBefore(runId, until);
    // still queued or running at its deadline: it did not complete for this answer
    if (!run) return { status: 'error', replyDisposition: 'empty', delivered: false, deliveryAttempted: false };
    const disposition = run.status === 'succeeded' ? replyDisposition(run.reply, config.heartbeat.ackMaxChars) : 'empty';
    const report: RunCompletionReport = {
      status: run.status === 'succeeded' ? 'ok' : run.status === 'cancelled' ? 'skipped' : 'error',
      replyDisposition: disposition,
      delivered: false,
      deliveryAttempted: false,
      ...(config.hooks.completionIncludesReply && typeof run.reply === 'string' && { reply: run.reply }),
    };
    if (run.status !== 'succeeded' || !run.action.deliver) return report;
    if (disposition !== 'visible') {
      report.deliverySuppressionReason = disposition === 'empty' ? 'empty' : run.reply!.trim() === 'NO_REPLY' ? 'silent' : 'heartbeat';
      return report;
    }
    if (this.deps.noChannels()) return report;
    const delivery = await this.firstAttempt(run, Date.now() + config.delivery.requestTimeoutMs);
    if (!delivery) return report;
    report.deliveryAttempted = delivery.attempts > 0 || SETTLED.has(delivery.status);
    report.delivered = delivery.status === 'delivered';
    if (delivery.status === 'failed' || delivery.status === 'abandoned' || (!report.delivered && delivery.lastError !== null)) report.deliveryError = 'delivery-failed';
    return report;
  }

  /** the run's latest delivery (a fallback replaces a failed one) once its first attempt ended, or as it is at `until` */
  private async firstAttempt(run: RunRecord, until: number): Promise<DeliveryRecord | undefined> {
    const { signals, deliveries } = this.deps.store;
    let wake!: () => void;
    let changed = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = signals.subscribe(changeTopic('deliveries'), () => wake());
    try {
      for (;;) {
        const current = changed;
        const latest = (await deliveries.forRun(run.id)).at(-1);
        // a delivery being sent has counted its attempt already: its first attempt ends when the send does
        if ((latest && latest.status !== 'sending' && (latest.attempts > 0 || SETTLED.has(latest.status))) || Date.now() >= until) return latest;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([current, new Promise<void>((resolve) => (timer = setTimeout(resolve, until - Date.now())))]);
        clearTimeout(timer);
        // a change from here on is seen by the next read
        changed = new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      unsubscribe();
    }
  }
}
