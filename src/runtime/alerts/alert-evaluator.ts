import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { AlertsConfig } from '../../config/sections/alerts-schema.js';
import type { AlertMetrics } from '../../metrics/alert-metrics.js';
import type { ChannelAdapter, PluginService } from '../../plugin-sdk/sdk.js';
import type { AlertNotice, AlertRecord, NewAlert, Store } from '../../store/port.js';
import type { Budgets } from '../../accounts/budgets.js';
import type { ToolServerHealth } from '../../tools/mcp/server-health.js';
import { parseDuration } from '../duration.js';
import { WorkLoop } from '../work/work-loop.js';
import { changeTopic } from '../operator/change-feed.js';
import type { AlertCheck, Incident } from './alert-check.js';
import { alertCheck, silentSource } from './alert-conditions.js';
import { noticeId, noticeText } from './alert-notices.js';

/** a notice not queued this long after it was written belongs to a replica that died before queueing it */
const NOTICE_GRACE_MS = 30_000;
/** the least time between two passes started by changes (a burst of runs is judged once) */
const EVENT_GAP_MS = 200;
/** a store that does not answer a trivial query within this is down */
const PING_TIMEOUT_MS = 5_000;
const WATCHING_SINCE_KEY = 'alerts:watchingSince';

export interface AlertEvaluatorDeps {
  alerts: AlertsConfig;
  store: Store;
  /** the durable outbox: every notice goes through it */
  outbox: { deliverAlert(notice: { id: string; channel: string; to?: string; text: string }): Promise<void> };
  /** configured channel adapters by plugin id: the direct way out while the store is down */
  channels: Map<string, ChannelAdapter>;
  resolveChannel(name: string): string | undefined;
  services: readonly PluginService[];
  /** the budgets of keys and agents (budget.exceeded) */
  budgets?: Budgets;
  /** the MCP servers' health on this replica (tools.unhealthy) */
  toolServers?: () => ToolServerHealth[];
  /** the mappings declaring `expectEvery`, read at each pass (a reload may change them) */
  expectedSources(): { mappingId: string; afterMs: number }[];
  requestTimeoutMs: number;
  defaultAgentId: string;
  metrics?: AlertMetrics;
  logger: Logger;
}

/**
 * Checks the alert rules on every replica: every `evaluateEvery`, and when runs or deliveries
 * change (on any replica: store signals cross them). The store decides who alerts: raising is an
 * insert refused for an incident key already open, resolving a conditional update, so an incident
 * is sent once however many replicas see it. Notices go through the durable outbox.
 */
export class AlertEvaluator {
  private readonly log: Logger;
  private readonly replica = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer?: NodeJS.Timeout;
  /** the rules are on (started, and some rule or expected source): changes and the timer ask for passes */
  private watching = false;
  /** started by the gateway (until stopped): a reload reconfigures only a started evaluator */
  private started = false;
  /** one pass at a time; those asked by changes at most one per EVENT_GAP_MS */
  private readonly passes = new WorkLoop({
    pass: () => this.timedPass(),
    failed: (err) => this.log.error({ err }, 'alert pass failed'),
    gapMs: EVENT_GAP_MS,
  });
  private unsubscribe: (() => void)[] = [];
  private watchingSince?: number;
  /** while the store does not answer: since when, on this replica */
  private outage?: { since: number };

  constructor(private readonly deps: AlertEvaluatorDeps) {
    this.log = deps.logger.child({ component: 'alerts' });
  }

  private get enabled(): boolean {
    return this.deps.alerts.rules.length > 0 || this.deps.expectedSources().length > 0;
  }

  /**
   * After a config reload: the rules (and the change feeds they listen to) are read again, so an
   * alerts section added, changed or removed by a reload takes effect as it would at a start.
   */
  reconfigure(): void {
    if (!this.started) return;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.watching = false;
    this.start();
  }

  start(): void {
    this.started = true;
    if (!this.passes.started) this.passes.start({ wake: false });
    if (!this.enabled) return;
    this.watching = true;
    const { rules } = this.deps.alerts;
    if (rules.some((r) => r.on === 'runs.failing' || r.on === 'schedule.failing')) this.unsubscribe.push(this.deps.store.signals.subscribe(changeTopic('runs'), () => this.kick(true)));
    if (rules.some((r) => r.on === 'delivery.failed' || r.on === 'outbox.stale')) {
      this.unsubscribe.push(this.deps.store.signals.subscribe(changeTopic('deliveries'), () => this.kick(true)));
    }
    this.kick();
  }

  /** stops the timer and the change subscriptions, and waits for a pass under way */
  async stop(): Promise<void> {
    this.started = false;
    this.watching = false;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    await this.passes.stop();
  }

  /** a pass now (or right after the one under way); `fromChange`: at most one per EVENT_GAP_MS */
  private kick(fromChange = false): void {
    if (this.watching) this.passes.wake({ gap: fromChange });
  }

  /** a pass, then the next one `evaluateEvery` after it (a pass asked for meanwhile moves nothing: it schedules again) */
  private async timedPass(): Promise<void> {
    try {
      await this.pass();
    } finally {
      this.schedule(parseDuration(this.deps.alerts.evaluateEvery));
    }
  }

  private schedule(ms: number): void {
    if (!this.watching) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    if (!(await this.storeAnswers())) return;
    const { store } = this.deps;
    const now = Date.now();
    this.watchingSince ??= await store.state.update<number>(WATCHING_SINCE_KEY, (since) => since ?? now);
    const checks = this.checks(this.watchingSince);
    const firing: Incident[] = [];
    for (const check of checks) firing.push(...(await check.firing(now)));
    for (const incident of firing) await this.raise({ id: randomUUID(), ...incident, raisedAt: now });
    for (const open of await store.alerts.open()) {
      const verdicts = await Promise.all(checks.map((check) => check.holds(open, firing)));
      // kept while any check finds it, and when no check here can judge it; one raised since this
      // pass looked (by another replica) is judged by the next pass, not by this one's older view
      if (open.raisedAt >= now || verdicts.includes(true) || !verdicts.includes(false)) continue;
      await this.resolve(open.incidentKey, now);
    }
    for (const alert of await store.alerts.noticesDue(now - NOTICE_GRACE_MS, 50)) {
      if (alert.raisedQueuedAt === null) await this.queueNotice(alert, 'raised');
      if (alert.status === 'resolved' && alert.resolvedQueuedAt === null) await this.queueNotice(alert, 'resolved');
    }
  }

  private checks(watchingSince: number): AlertCheck[] {
    const { alerts, store, services, budgets, toolServers } = this.deps;
    const checks = alerts.rules.flatMap((rule) => alertCheck(rule, { store, services, watchingSince, budgets, toolServers }) ?? []);
    const ruled = new Set(alerts.rules.flatMap((r) => (r.on === 'source.silent' ? [r.mapping] : [])));
    for (const { mappingId, afterMs } of this.deps.expectedSources()) {
      if (!ruled.has(mappingId)) checks.push(silentSource(store, mappingId, afterMs, watchingSince));
    }
    return checks;
  }

  private async raise(incident: NewAlert): Promise<AlertRecord | undefined> {
    const alert = await this.deps.store.alerts.raise(incident, parseDuration(this.deps.alerts.cooldown));
    if (!alert) return undefined;
    this.deps.metrics?.counted(alert.condition, alert.notified ? 'raised' : 'suppressed');
    this.log.warn({ alertId: alert.id, condition: alert.condition, subject: alert.subject, notified: alert.notified }, alert.notified ? 'alert raised' : 'alert raised within its cooldown: stored, not sent');
    if (alert.notified) await this.queueNotice(alert, 'raised');
    return alert;
  }

  private async resolve(incidentKey: string, at: number): Promise<void> {
    const alert = await this.deps.store.alerts.resolve(incidentKey, at);
    if (!alert) return;
    this.deps.metrics?.counted(alert.condition, 'resolved');
    this.log.info({ alertId: alert.id, condition: alert.condition, subject: alert.subject }, 'alert resolved');
    if (alert.notified) await this.queueNotice(alert, 'resolved');
  }

  private async queueNotice(alert: AlertRecord, notice: AlertNotice): Promise<void> {
    const text = noticeText(alert, notice);
    const { targets } = this.deps.alerts;
    for (const [i, target] of targets.entries()) {
      await this.deps.outbox.deliverAlert({ id: noticeId(alert.id, notice, i), channel: target.channel, to: target.to, text });
    }
    await this.deps.store.alerts.noticeQueued(alert.id, notice, Date.now());
  }

  /**
   * Whether the store answers. While it does not, the outbox (in the store) cannot carry a notice:
   * with a store.unreachable rule this replica says so once, straight through the targets'
   * channels; when it answers again, the incident is stored, and resolved through the outbox.
   */
  private async storeAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.deps.store.probe.ping(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), PING_TIMEOUT_MS))),
      ]);
    } catch (error) {
      if (!this.outage) {
        this.outage = { since: Date.now() };
        this.log.error({ err: error }, 'alerts: the store does not answer');
        await this.sayStoreDown(error);
      }
      return false;
    } finally {
      clearTimeout(timer);
    }
    if (this.outage) {
      const { since } = this.outage;
      this.outage = undefined;
      if (this.watchesStore) await this.recordOutage(since);
    }
    return true;
  }

  private get watchesStore(): boolean {
    return this.deps.alerts.rules.some((r) => r.on === 'store.unreachable');
  }

  private outageSummary(since: number): string {
    return `the database did not answer replica ${this.replica} from ${new Date(since).toISOString()}`;
  }

  private async sayStoreDown(error: unknown): Promise<void> {
    if (!this.watchesStore) return;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name ?? 'error';
    const text = `herald alert: store.unreachable (${this.replica}): ${this.outageSummary(this.outage!.since)} (${code}); alerts resume when it answers`;
    const now = new Date().toISOString();
    for (const target of this.deps.alerts.targets) {
      const channel = this.deps.resolveChannel(target.channel);
      const adapter = channel ? this.deps.channels.get(channel) : undefined;
      if (!adapter) continue;
      try {
        await adapter.send({
          to: target.to ?? '',
          text,
          deliveryId: randomUUID(),
          runId: null,
          sessionKey: 'main',
          agentId: this.deps.defaultAgentId,
          createdAt: now,
          signal: AbortSignal.timeout(this.deps.requestTimeoutMs * 2),
          requestTimeoutMs: this.deps.requestTimeoutMs,
        });
      } catch (err) {
        this.log.error({ err, channel }, 'alerts: could not say the store is unreachable');
      }
    }
  }

  /** the outage this replica already announced directly: stored (its raised notice counted as sent) and resolved through the outbox */
  private async recordOutage(since: number): Promise<void> {
    const key = `store.unreachable:${this.replica}`;
    const alert = await this.deps.store.alerts.raise(
      { id: randomUUID(), condition: 'store.unreachable', incidentKey: key, cooldownKey: key, subject: this.replica, summary: this.outageSummary(since), raisedAt: since },
      0,
    );
    if (!alert) return;
    this.deps.metrics?.counted(alert.condition, 'raised');
    await this.deps.store.alerts.noticeQueued(alert.id, 'raised', Date.now());
    await this.resolve(key, Date.now());
  }
}
