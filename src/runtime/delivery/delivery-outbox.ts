import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { ChannelAdapter } from '../../plugin-sdk/sdk.js';
import { ChannelError } from '../../plugin-sdk/channel-error.js';
import type { DeliveryRecord, RunRecord, Store } from '../../store/port.js';
import { resolveTarget, rememberRoute, type ResolvedTarget, type TargetDeps } from './delivery-target.js';
import { MAIN_SESSION, type MainSession } from '../main-session.js';
import { answeredInResponse, replyDisposition, type ReplyDelivery } from './reply-delivery.js';
import { retryDelay } from './retry-delay.js';
import { copyWith } from '../../utils/copy-with.js';
import { fallbackTargets, retryPolicy } from './delivery-policy.js';
import { attemptSpan, deliveryTraceContext } from './delivery-span.js';
import { annotate } from '../../tracing/tracing.js';
import type { HealthLedger } from '../../utils/health-ledger.js';
import { carriesCredential, CREDENTIAL_EXPIRED, CREDENTIAL_GONE, CREDENTIAL_LIFE_MS, isScrubbedRecipient, shownRecipient } from './recipient-credential.js';
import { scrubRunCredential, scrubRunsPastCredentialLife } from './run-credential-scrub.js';
import { alreadyOnItsWay, rememberSent } from './repeated-reply.js';
import { WorkLoop } from '../work/work-loop.js';

/** how often the outbox looks for work it was not told about (another process, an expired lease) */
const POLL_MS = 1000;
/** the state key remembering from when the next start looks for replies a stopped process never queued */
const SWEEP_FROM_KEY = 'delivery:sweepFrom';
/** overlap between two sweeps, for a run finished (its clock read) just before a sweep began */
const SWEEP_OVERLAP_MS = 60_000;
/** from when the next start looks, and whether the process that wrote it was quiet (no channel) */
interface SweepMarker {
  from: number;
  quiet?: boolean;
}
/** a marker as stored (a bare number before quiet processes were told apart) */
const sweepMarker = (stored: SweepMarker | number | undefined): SweepMarker => (typeof stored === 'number' ? { from: stored } : (stored ?? { from: 0 }));

/** how often the outbox fails the pending deliveries whose one-reply credential expired (a waiting retry's) */
const EXPIRY_SWEEP_MS = 60_000;

/** how long `stop()` lets sends in flight finish before aborting them */
const STOP_GRACE_MS = 5_000;

export interface DeliveryOutboxDeps {
  config: HeraldConfig;
  store: Store;
  mainSession: MainSession;
  /** configured channel adapters by plugin id (each channel's default account) */
  channels: Map<string, ChannelAdapter>;
  /** a channel's other accounts: the adapter of a run's `accountId` (absent: every channel has one account) */
  accounts?: { adapter(channel: string, accountId?: string): ChannelAdapter | undefined };
  resolveChannel(name: string): string | undefined;
  /** the agent heartbeat replies speak for */
  defaultAgentId: string;
  logger: Logger;
  /** told how each attempt to a channel ended: the Overview's unhealthy channels (this process's attempts) */
  health?: HealthLedger;
}

/**
 * The durable outbox. A reply becomes a row before the first attempt; a worker claims a due
 * row atomically with a lease, sends it through the channel plugin, and records the outcome.
 * The plugin classifies a failure from the platform's documented codes: a permanent one fails
 * the delivery at once; a transient one waits (the delivery's retry schedule, jittered, or the
 * platform's Retry-After) until its attempts or its maximum age are used up. A final failure is
 * posted to the main session and hands the reply to the next fallback target, as a delivery of
 * its own. Rows left by a stopped process resume at start; a crashed worker's claim is retaken
 * when its lease expires.
 */
export class DeliveryOutbox implements ReplyDelivery {
  /** this process's identity on claims */
  private readonly owner = randomUUID();
  private readonly inFlight = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  /** the next pass: when the earliest pending delivery is due, at most a poll interval away */
  private timer?: NodeJS.Timeout;
  /** one pass at a time claims what is due into the free sends */
  private readonly passes = new WorkLoop({ pass: () => this.pass(), failed: (err) => this.log.error({ err }, 'delivery pass failed') });
  private sweptAt = 0;
  private readonly log: Logger;
  private readonly targets: TargetDeps;

  constructor(private readonly deps: DeliveryOutboxDeps) {
    this.log = deps.logger.child({ component: 'delivery' });
    this.targets = { mainSession: deps.mainSession, state: deps.store.state, channels: deps.channels, resolveChannel: deps.resolveChannel };
  }

  /**
   * A fresh install has no channel, while `deliver` defaults to true and `last` falls back to
   * whatsapp: a failed delivery, a warning and a "Delivery failed" event for every run would be
   * noise. With no channel configured at all a reply is simply not delivered (the run's view says
   * why); once any channel is configured the interface's rules apply unchanged.
   */
  private get quiet(): boolean {
    return this.deps.channels.size === 0;
  }

  async deliverRunReply(run: RunRecord, action: AgentAction, reply: string): Promise<void> {
    if (this.quiet) return;
    // a run resumed after a crash must not queue its reply twice
    if ((await this.deps.store.deliveries.forRun(run.id)).length) return;
    const target = await resolveTarget(this.targets, { channel: action.channel, to: action.to });
    await this.enqueue({ runId: run.id, kind: 'run', sessionKey: run.sessionKey, agentId: run.agentId, text: reply }, target);
  }

  async deliverHeartbeatReply(reply: string): Promise<void> {
    if (this.quiet) return;
    const target = await resolveTarget(this.targets, { channel: 'last' });
    // the recipient was just sent, or is being sent, these very words (the run's reply the heartbeat read about): once is the promise
    if (target.ok && (await alreadyOnItsWay(this.deps.store, target, reply, Date.now()))) {
      this.log.info({ channel: target.channel }, 'heartbeat reply repeats the last message its recipient got or is getting; not sent again');
      return;
    }
    await this.enqueue({ runId: null, kind: 'heartbeat', sessionKey: MAIN_SESSION, agentId: this.deps.defaultAgentId, text: reply }, target);
  }

  /**
   * An alert's notice to one alerts target. Its id is derived from the alert and the target, so a
   * notice queued again (by a replica finishing what a dead one began) adds no second row.
   */
  async deliverAlert(notice: { id: string; channel: string; to?: string; text: string }): Promise<void> {
    const target = await resolveTarget(this.targets, { channel: notice.channel, to: notice.to });
    await this.enqueue({ runId: null, kind: 'alert', sessionKey: MAIN_SESSION, agentId: this.deps.defaultAgentId, text: notice.text }, target, { id: notice.id });
  }

  /**
   * A message an agent's `herald__send_message` tool sends. Its id is the call's record id, so a
   * call resumed after a crash queues no second row. An unknown or unconfigured target is thrown,
   * and the model told so, rather than queued to fail.
   */
  async deliverToolMessage(message: { id: string; agentId: string; channel: string; to?: string; text: string }): Promise<void> {
    const target = await resolveTarget(this.targets, { channel: message.channel, to: message.to });
    if (!target.ok) throw new Error(target.error);
    await this.enqueue({ runId: null, kind: 'tool', sessionKey: MAIN_SESSION, agentId: message.agentId, text: message.text }, target, { id: message.id });
  }

  async start(): Promise<void> {
    this.passes.start({ wake: false });
    await this.queueRepliesLeftBehind();
    const pending = await this.deps.store.deliveries.list({ status: 'pending', limit: 1 });
    if (pending.length) this.log.info('resuming pending deliveries');
    this.kick();
  }

  /**
   * A run is marked succeeded before its reply is queued; a process that stopped in between
   * left a reply nobody will send. Queue those now (the insert refuses a second row for a run).
   * Each start looks only at runs finished since the previous start, so this stays cheap.
   * Only what the previous process meant to send is queued: not a reply the hook's HTTP answer
   * carried, and nothing a quiet process (no channel configured) finished, whose replies stay
   * not delivered when a channel is configured later (an operator re-runs what should go out).
   */
  private async queueRepliesLeftBehind(): Promise<void> {
    const { store, config } = this.deps;
    const startedAt = Date.now();
    const marker = sweepMarker(await store.state.get<SweepMarker | number>(SWEEP_FROM_KEY));
    if (this.quiet) {
      await store.state.set(SWEEP_FROM_KEY, { from: startedAt, quiet: true } satisfies SweepMarker);
      return;
    }
    let queued = 0;
    // after a quiet process nothing was left behind: its runs were decided not delivered as they ended
    const runIds = marker.quiet ? [] : await store.deliveries.runsAwaitingDelivery(marker.from);
    for (const runId of runIds) {
      const run = await store.runs.get(runId);
      if (!run || run.reply === null || replyDisposition(run.reply, config.heartbeat.ackMaxChars) !== 'visible') continue;
      const action: AgentAction = run.action;
      if (answeredInResponse(action, run.finishedAt)) continue;
      const target = await resolveTarget(this.targets, { channel: action.channel, to: action.to });
      if (await this.enqueue({ runId: run.id, kind: 'run', sessionKey: run.sessionKey, agentId: run.agentId, text: run.reply }, target)) queued++;
    }
    if (queued) this.log.info({ deliveries: queued }, 'queued replies of runs that finished just before a stop');
    // after a quiet process no overlap: a run it finished just before this start was decided not delivered
    await store.state.set(SWEEP_FROM_KEY, { from: marker.quiet ? startedAt : startedAt - SWEEP_OVERLAP_MS } satisfies SweepMarker);
  }

  /**
   * Stops claiming. Sends in flight get `graceMs` to finish (a send cut off after the platform
   * took it would be sent again by the next process); after that they are aborted and handed
   * back without counting the attempt.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.passes.stop();
    const all = Promise.all([...this.inFlight.values()].map((f) => f.promise));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const { abort } of this.inFlight.values()) abort.abort(new Error('shutting down'));
    await all;
  }

  /**
   * writes the delivery row (before any attempt); false when the run (or the delivery a fallback
   * replaces) already had one, or the id is taken (an alert's notice has an id derived from the alert)
   */
  private async enqueue(
    base: Pick<DeliveryRecord, 'runId' | 'kind' | 'sessionKey' | 'agentId' | 'text'>,
    target: ResolvedTarget,
    { id = randomUUID(), fallbackOf = null }: { id?: string; fallbackOf?: string | null } = {},
  ): Promise<boolean> {
    const record = this.newRecord(base, target, { id, fallbackOf });
    if (!(await this.deps.store.deliveries.insert(record))) return false;
    await this.queued(record, target);
    return true;
  }

  private newRecord(
    base: Pick<DeliveryRecord, 'runId' | 'kind' | 'sessionKey' | 'agentId' | 'text'>,
    target: ResolvedTarget,
    { id = randomUUID(), fallbackOf = null }: { id?: string; fallbackOf?: string | null },
  ): DeliveryRecord {
    const now = Date.now();
    return copyWith(base, {
      id,
      channel: target.channel,
      to: target.to,
      status: target.ok ? ('pending' as const) : ('failed' as const),
      attempts: 0,
      partsSent: 0,
      lastError: target.ok ? null : target.error,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseUntil: null,
      createdAt: now,
      updatedAt: now,
      deliveredAt: null,
      fallbackOf,
      ...deliveryTraceContext(),
    });
  }

  /** after a delivery row was written: sent soon, or (no target) failed at once, falling back */
  private async queued(record: DeliveryRecord, target: ResolvedTarget): Promise<void> {
    if (!target.ok) {
      this.log.warn({ deliveryId: record.id, runId: record.runId, channel: record.channel, error: target.error }, 'delivery has no target');
      const plan = await this.fallbackPlan(record);
      if (plan && (await this.deps.store.deliveries.insert(plan.record))) await this.queued(plan.record, plan.target);
      await this.tellMainSession(record, `Delivery failed: ${target.error}${plan?.note ?? ''}`);
      return;
    }
    this.log.info({ deliveryId: record.id, runId: record.runId, channel: record.channel, ...(record.fallbackOf && { fallbackOf: record.fallbackOf }) }, 'delivery queued');
    this.kick();
  }

  /** looks for due work now (an operator's retry made some due); calls while a pass runs coalesce into one more pass */
  kick(): void {
    this.passes.wake();
  }

  /** claims what is due, then (also after a failure) sets the timer for the next pass */
  private async pass(): Promise<void> {
    try {
      await this.drain();
    } finally {
      this.schedule();
    }
  }

  private async drain(): Promise<void> {
    const { store, config } = this.deps;
    const now = Date.now();
    if (now - this.sweptAt >= EXPIRY_SWEEP_MS) {
      this.sweptAt = now;
      // the sweep failing (the store away) must not stop this pass's sends: the next minute tries again
      await this.expireCredentials(now).catch((err) => this.log.error({ err }, 'expiring interaction tokens failed'));
    }
    const free = config.delivery.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const ids = (await store.deliveries.due(now, free + this.inFlight.size)).filter((id) => !this.inFlight.has(id)).slice(0, free);
    const leaseMs = this.leaseMs();
    for (const id of ids) {
      const claimed = await store.deliveries.claim(id, this.owner, now, now + leaseMs);
      if (!claimed) continue; // another worker was faster
      const abort = new AbortController();
      const promise = attemptSpan(claimed, () => this.attempt(claimed, abort.signal))
        .catch((err) => this.log.error({ err, deliveryId: id }, 'delivery bookkeeping failed'))
        .finally(() => {
          this.inFlight.delete(id);
          this.kick();
        });
      this.inFlight.set(id, { promise, abort });
    }
  }

  /**
   * A pending delivery whose one-reply credential (Discord's interaction token) outlived its 15
   * minutes, waiting for a retry, can never be sent: it fails as expired and the store scrubs the
   * credential in that write. Its fallback, if any, is queued after (a crash in between leaves it
   * failed without one, as the operator then sees). Then the runs made before those 15 minutes have
   * it scrubbed from their actions (theirs among them, made before their delivery was queued).
   */
  private async expireCredentials(now: number): Promise<void> {
    const expired = await this.deps.store.deliveries.expireCredentials(now - CREDENTIAL_LIFE_MS, now, CREDENTIAL_EXPIRED);
    for (const d of expired) {
      this.log.warn({ deliveryId: d.id, runId: d.runId, channel: d.channel, error: CREDENTIAL_EXPIRED }, 'delivery failed');
      const plan = await this.fallbackPlan(d);
      if (plan && (await this.deps.store.deliveries.insert(plan.record))) await this.queued(plan.record, plan.target);
      await this.tellMainSession(d, `Delivery failed: ${d.channel} to ${shownRecipient(d.to)}: ${CREDENTIAL_EXPIRED}${plan?.note ?? ''}`);
    }
    await scrubRunsPastCredentialLife(this.deps.store, now);
  }

  /** a claim outlives the longest request (and each part sent renews it), so a live worker never loses one it is still sending */
  private leaseMs(): number {
    const { delivery } = this.deps.config;
    return Math.max(delivery.leaseMs, delivery.requestTimeoutMs * 2);
  }

  /** the next pass: when the earliest pending delivery is due, at most a poll interval away */
  private schedule(): void {
    if (!this.passes.started || this.inFlight.size >= this.deps.config.delivery.concurrency) return;
    void this.deps.store.deliveries
      .nextDueAt()
      .then((next) => {
        if (!this.passes.started) return;
        const wait = next === undefined ? POLL_MS : Math.min(POLL_MS, Math.max(5, next - Date.now()));
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.kick(), wait);
        this.timer.unref();
      })
      .catch((err) => this.log.error({ err }, 'delivery schedule failed'));
  }

  /**
   * The account a run's reply goes out through: the one its request named (kept in the run's
   * action, so a retry, also after a restart, uses it again), on the channel it named; a fallback
   * to another target, a heartbeat or an alert uses its channel's default account.
   */
  private accountOf(d: DeliveryRecord, action: Partial<AgentAction> | undefined): string | undefined {
    if (d.kind !== 'run' || d.fallbackOf || !action?.accountId || !action.channel || !d.channel) return undefined;
    return this.deps.resolveChannel(action.channel) === d.channel ? action.accountId : undefined;
  }

  private async attempt(d: DeliveryRecord, shutdown: AbortSignal): Promise<void> {
    const { store, config, mainSession } = this.deps;
    const log = this.log.child({ deliveryId: d.id, runId: d.runId, channel: d.channel, attempt: d.attempts });
    const run = d.runId ? await store.runs.get(d.runId) : undefined;
    const action = run?.action as Partial<AgentAction> | undefined;
    const accountId = this.accountOf(d, action);
    const adapter = !d.channel ? undefined : accountId ? this.deps.accounts?.adapter(d.channel, accountId) : this.deps.channels.get(d.channel);
    if (!adapter || !d.channel) {
      const missing = accountId ? `account "${accountId}" of channel ${d.channel} is not configured (no channels.${d.channel}.accounts.${accountId} in the config)` : `channel ${d.channel ?? '(none)'} is not configured (no channels.${d.channel} in the config)`;
      if (d.channel) this.deps.health?.failed(d.channel, missing);
      await this.finalFailure(d, missing, log);
      return;
    }
    // a one-reply credential past its life opens nothing: no request is made with it
    if (carriesCredential(d.to) && Date.now() - d.createdAt >= CREDENTIAL_LIFE_MS) {
      await this.finalFailure(d, CREDENTIAL_EXPIRED, log);
      return;
    }
    // nor one no longer kept (`…`): a run's action scrubbed before its reply was queued, a replayed payload
    if (isScrubbedRecipient(d.to)) {
      await this.finalFailure(d, CREDENTIAL_GONE, log);
      return;
    }
    const threadId = typeof action?.threadId === 'string' && action.threadId ? action.threadId : undefined;
    const policy = retryPolicy(config, { channel: d.channel, agentId: d.agentId, action });
    // the shutdown signal only: each request to the platform gets its own time limit
    // (`requestTimeoutMs`), so a long reply in many parts is never cut short midway
    const leaseMs = this.leaseMs();
    try {
      await adapter.send({
        to: d.to ?? '',
        text: d.text,
        deliveryId: d.id,
        runId: d.runId,
        sessionKey: d.sessionKey,
        agentId: d.agentId,
        createdAt: new Date(d.createdAt).toISOString(),
        signal: shutdown,
        requestTimeoutMs: config.delivery.requestTimeoutMs,
        attempt: d.attempts,
        ...(threadId && { threadId }),
        partsSent: d.partsSent,
        onPartSent: async (index) => {
          // each accepted part renews the claim for the next one
          await store.deliveries.partSent(d.id, this.owner, index + 1, Date.now() + leaseMs);
        },
      });
    } catch (error) {
      if (shutdown.aborted) {
        await store.deliveries.release(d.id, this.owner, Date.now());
        log.info('delivery handed back at shutdown');
        return;
      }
      // anything that is not a ChannelError (a third-party plugin's own throw) is treated as transient
      const failure = error instanceof ChannelError ? error : new ChannelError(error instanceof Error ? error.message : String(error), true);
      const { outcome } = failure;
      this.deps.health?.failed(d.channel, failure.message);
      // the platform's answer: its HTTP status, never its body
      annotate({ 'herald.delivery.platform_status': failure.status });
      if (outcome.kind === 'permanent') {
        annotate({ 'herald.delivery.outcome': 'failed', 'herald.delivery.error': outcome.reason });
        log.warn({ error: failure.message, reason: outcome.reason }, 'permanent error: the delivery fails at once');
        // the platform's code beside its text where the text alone does not name it (Discord's 10003)
        await this.finalFailure(d, failure.message.includes(outcome.reason) ? failure.message : `${failure.message} (${outcome.reason})`, log);
        return;
      }
      const now = Date.now();
      const wait = retryDelay(d.attempts, policy, outcome.retryAfterMs);
      // the age limit counts from the queueing (or an operator's retry) to the next attempt
      const tooOld = policy.maxAgeMs !== undefined && now + wait - (d.retriedAt ?? d.createdAt) > policy.maxAgeMs;
      if (d.attempts < policy.attempts && !tooOld) {
        annotate({ 'herald.delivery.outcome': 'retry', 'herald.delivery.retry_in_ms': wait });
        await store.deliveries.retryAt(d.id, this.owner, now + wait, failure.message);
        log.warn({ error: failure.message, retryInMs: wait }, 'delivery attempt failed; will retry');
        return;
      }
      annotate({ 'herald.delivery.outcome': 'failed' });
      const gaveUp = tooOld ? `gave up after ${d.attempts} attempts: retry.maxAgeMs ${policy.maxAgeMs} reached` : `gave up after ${d.attempts} attempts`;
      await this.finalFailure(d, `${failure.message} (${gaveUp})`, log);
      return;
    }
    annotate({ 'herald.delivery.outcome': 'delivered' });
    this.deps.health?.ok(d.channel);
    // an alert goes to the operators' chat: replies to `last` must not follow it there; a one-reply recipient is no route
    const isRoute = d.kind !== 'alert' && !carriesCredential(d.to);
    // remembered while the row is still sending: a heartbeat reply reads the rows, then this (alreadyOnItsWay)
    if (isRoute) await rememberSent(store.state, { channel: d.channel, to: d.to ?? '' }, d.text, Date.now());
    if (await store.deliveries.delivered(d.id, this.owner, Date.now())) {
      if (isRoute) await rememberRoute(this.targets, { channel: d.channel, to: d.to ?? '' });
      await scrubRunCredential(this.deps.store, d, this.log);
      log.info('delivered');
    } else {
      log.warn('delivered, but the claim had been lost meanwhile');
    }
  }

  /** the failure and the fallback delivery that replaces it are one write: a crash in between loses no reply */
  private async finalFailure(d: DeliveryRecord, reason: string, log: Logger): Promise<void> {
    const plan = await this.fallbackPlan(d);
    if (!(await this.deps.store.deliveries.failed(d.id, this.owner, reason, Date.now(), plan?.record))) return;
    await scrubRunCredential(this.deps.store, d, this.log);
    log.warn({ error: reason }, 'delivery failed');
    if (plan) await this.queued(plan.record, plan.target);
    const target = d.to ? `${d.channel} to ${shownRecipient(d.to)}` : `${d.channel}`;
    await this.tellMainSession(d, `Delivery failed: ${target}: ${reason}${plan?.note ?? ''}`);
  }

  /**
   * When a delivery fails for good, the reply goes to the next fallback target (the mapping's,
   * else its agent's): a delivery of its own linked to this one, and what the main session's
   * event adds ("; falling back to <target>"). Undefined when no target is left.
   */
  private async fallbackPlan(d: DeliveryRecord): Promise<{ record: DeliveryRecord; target: ResolvedTarget; note: string } | undefined> {
    const { store, config } = this.deps;
    // an alert's notice has its own targets (every alerts target gets one): no reply to fall back for
    if (d.kind === 'alert') return undefined;
    const run = d.runId ? await store.runs.get(d.runId) : undefined;
    const targets = fallbackTargets(config, { agentId: d.agentId, action: run?.action });
    let depth = 0;
    for (let up = d; up.fallbackOf && depth < targets.length; depth++) {
      const parent = await store.deliveries.get(up.fallbackOf);
      if (!parent) break;
      up = parent;
    }
    const next = targets[depth];
    if (!next) return undefined;
    const target = await resolveTarget(this.targets, { channel: next.channel, to: next.to ?? null });
    const record = this.newRecord({ runId: d.runId, kind: d.kind, sessionKey: d.sessionKey, agentId: d.agentId, text: d.text }, target, { fallbackOf: d.id });
    return { record, target, note: `; falling back to ${next.channel}${next.to ? ` to ${next.to}` : ''}` };
  }

  /**
   * A failed run delivery becomes a system event. A failed heartbeat reply does not: the next
   * heartbeat would answer the event, that answer would fail the same way, and so on forever;
   * it stays visible in the admin API and the log.
   */
  private async tellMainSession(d: Pick<DeliveryRecord, 'kind'>, text: string): Promise<void> {
    if (d.kind === 'run') await this.deps.mainSession.enqueueSystemEvent(text);
  }
}
