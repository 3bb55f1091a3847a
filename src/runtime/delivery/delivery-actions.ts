import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { ChannelAdapter } from '../../plugin-sdk/sdk.js';
import { isUnfinished, type DeliveryRecord, type FailedDeliveryFilter, type RetryableTargets, type RunRecord, type Store } from '../../store/port.js';
import { deliveryView } from './delivery-view.js';
import { answeredInResponse, intendedTarget, replyDisposition } from './reply-delivery.js';
import { isScrubbedRecipient, shownRecipient } from './recipient-credential.js';
import { scrubRunCredential } from './run-credential-scrub.js';

/** why a reply was not delivered on an install without any channel (not a failure) */
export const NO_CHANNEL_CONFIGURED = 'no channel configured';

/** What an operator does with the outbox's deliveries (the admin API's routes). */
export interface DeliveryActions {
  /**
   * An operator's retry of a failed delivery (after a longer outage than the retries covered):
   * back to pending with fresh attempts; answers its admin view. Throws HERALD_NOT_FOUND, or
   * HERALD_DELIVERY_NOT_RETRYABLE when it is not failed, never had a target, or its one-reply
   * credential (Discord's interaction token) was scrubbed when it failed.
   */
  retry(deliveryId: string): Promise<unknown>;
  /**
   * An operator gives up on a pending or failed delivery: it is never sent nor retried again;
   * answers its admin view. Throws HERALD_NOT_FOUND or HERALD_DELIVERY_NOT_ABANDONABLE.
   */
  abandon(deliveryId: string): Promise<unknown>;
  /**
   * An operator's bulk retry of the failed deliveries matching `filter` that a retry can send (a
   * target, no fallback sent in their place); `dryRun` only counts them. Holds across replicas:
   * each delivery changes state in the store, once.
   */
  retryMatching(filter: FailedDeliveryFilter, dryRun: boolean): Promise<{ count: number; dryRun: boolean }>;
  /** an operator's bulk abandon of the failed deliveries matching `filter`; `dryRun` only counts them */
  abandonMatching(filter: FailedDeliveryFilter, dryRun: boolean): Promise<{ count: number; dryRun: boolean }>;
  /** one delivery's admin view with its fallback chain (the first delivery, then each fallback); throws HERALD_NOT_FOUND */
  detail(deliveryId: string): Promise<unknown>;
  /** what GET /admin/runs/:id shows under `delivery` */
  describe(run: RunRecord): Promise<unknown>;
}

export interface DeliveryActionsDeps {
  config: HeraldConfig;
  store: Store;
  /** configured channel adapters by plugin id (each channel's default account) */
  channels: Map<string, ChannelAdapter>;
  /** tells the outbox that deliveries became due (after a retry) */
  wake(): void;
  logger: Logger;
}

/** The operator's actions on deliveries: each changes a delivery's state in the store, and the outbox sends what became due. */
export class OperatorDeliveryActions implements DeliveryActions {
  private readonly log: Logger;

  constructor(private readonly deps: DeliveryActionsDeps) {
    this.log = deps.logger.child({ component: 'delivery' });
  }

  async retry(deliveryId: string): Promise<unknown> {
    const { deliveries } = this.deps.store;
    const d = await deliveries.get(deliveryId);
    if (!d) throw new HeraldError('HERALD_NOT_FOUND', 'delivery not found');
    if (d.status === 'failed' && isScrubbedRecipient(d.to)) {
      throw new HeraldError(
        'HERALD_DELIVERY_NOT_RETRYABLE',
        "this delivery cannot be retried: the interaction token it answered with expired (Discord keeps it 15 minutes) and was removed when the delivery ended; re-run the run to answer elsewhere",
      );
    }
    const adapter = d.channel ? this.deps.channels.get(d.channel) : undefined;
    // a delivery that never had a target would fail the same way again: the run must be redone
    const hasTarget = adapter !== undefined && (d.to !== null || adapter.requiresRecipient === false);
    if (d.status !== 'failed' || !hasTarget || !(await deliveries.requeue(d.id, Date.now()))) {
      throw new HeraldError('HERALD_DELIVERY_NOT_RETRYABLE', d.status === 'failed' ? 'this delivery has no target to retry' : `delivery is ${d.status}, not failed`);
    }
    this.log.info({ deliveryId: d.id, runId: d.runId, channel: d.channel }, 'delivery retried by an operator');
    this.deps.wake();
    return deliveryView((await deliveries.get(d.id))!);
  }

  async abandon(deliveryId: string): Promise<unknown> {
    const { deliveries } = this.deps.store;
    const d = await deliveries.get(deliveryId);
    if (!d) throw new HeraldError('HERALD_NOT_FOUND', 'delivery not found');
    if (!(await deliveries.abandon(d.id, Date.now()))) {
      throw new HeraldError('HERALD_DELIVERY_NOT_ABANDONABLE', `delivery is ${d.status}: only a pending or failed one can be abandoned`);
    }
    // final now: its run's action keeps its one-reply credential no longer either
    await scrubRunCredential(this.deps.store, d, this.log);
    this.log.info({ deliveryId: d.id, runId: d.runId, channel: d.channel }, 'delivery abandoned by an operator');
    return deliveryView((await deliveries.get(d.id))!);
  }

  async retryMatching(filter: FailedDeliveryFilter, dryRun: boolean): Promise<{ count: number; dryRun: boolean }> {
    const { deliveries } = this.deps.store;
    const targets = this.retryableTargets();
    if (dryRun) return { count: await deliveries.countFailed(filter, targets), dryRun };
    const count = await deliveries.requeueFailed(filter, targets, Date.now());
    this.log.info({ deliveries: count, channel: filter.channel, mapping: filter.mappingId }, 'failed deliveries retried by an operator');
    if (count) this.deps.wake();
    return { count, dryRun };
  }

  async abandonMatching(filter: FailedDeliveryFilter, dryRun: boolean): Promise<{ count: number; dryRun: boolean }> {
    const { deliveries } = this.deps.store;
    if (dryRun) return { count: await deliveries.countFailed(filter), dryRun };
    const count = await deliveries.abandonFailed(filter, Date.now());
    this.log.info({ deliveries: count, channel: filter.channel, mapping: filter.mappingId }, 'failed deliveries abandoned by an operator');
    return { count, dryRun };
  }

  /** what a retry can send to: the configured channels, and those of them that need no recipient */
  private retryableTargets(): RetryableTargets {
    const channels = [...this.deps.channels.keys()];
    return { channels, recipientOptional: channels.filter((id) => this.deps.channels.get(id)!.requiresRecipient === false) };
  }

  async detail(deliveryId: string): Promise<unknown> {
    const { deliveries } = this.deps.store;
    const d = await deliveries.get(deliveryId);
    if (!d) throw new HeraldError('HERALD_NOT_FOUND', 'delivery not found');
    // a run's deliveries are its chain (only fallbacks share a run); a heartbeat reply's, its ancestors
    let chain: DeliveryRecord[];
    if (d.runId) chain = await deliveries.forRun(d.runId);
    else {
      chain = [d];
      for (let up = d; up.fallbackOf; ) {
        const parent = await deliveries.get(up.fallbackOf);
        if (!parent) break;
        chain.unshift(parent);
        up = parent;
      }
    }
    return { ...deliveryView(d), chain: chain.map(deliveryView) };
  }

  async describe(run: RunRecord): Promise<unknown> {
    const rows = await this.deps.store.deliveries.forRun(run.id);
    const intended = intendedTarget(run);
    const requested = { channel: intended.channel, to: shownRecipient(intended.to) };
    const latest = rows.at(-1);
    if (latest) return { ...deliveryView(latest), requested };
    if (!intended.deliver) return { status: 'not_requested', requested };
    if (isUnfinished(run.status)) return { status: 'waiting_for_run', requested };
    if (run.status === 'succeeded' && run.reply !== null && replyDisposition(run.reply, this.deps.config.heartbeat.ackMaxChars) === 'silent') {
      return { status: 'skipped', reason: 'the reply was only a heartbeat acknowledgement or NO_REPLY', requested };
    }
    if (run.status === 'succeeded' && answeredInResponse(run.action, run.finishedAt)) {
      return { status: 'answered', reason: "the hook's HTTP response carried the reply", requested };
    }
    // an install without any channel delivers nothing (see the outbox's `quiet`)
    if (run.status === 'succeeded' && this.deps.channels.size === 0) return { status: 'not_delivered', reason: NO_CHANNEL_CONFIGURED, requested };
    return { status: 'none', reason: run.status === 'succeeded' ? 'nothing was queued' : 'the run produced no reply', requested };
  }
}
