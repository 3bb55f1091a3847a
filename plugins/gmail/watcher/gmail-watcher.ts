import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Logger } from 'pino';
import type { PluginService, PluginState, ServiceHealth } from '../../../src/plugin-sdk/sdk.js';
import { releaseLease, takeLease } from '../../../src/plugin-sdk/state-lease.js';
import { accessTokenSource } from '../google/access-tokens.js';
import type { GmailConfig } from '../config.js';
import { GmailApi } from '../google/gmail-api.js';
import { GoogleApiError } from '../google/google-api.js';
import { fetchText, type FetchedText } from '../google/timed-fetch.js';
import { laterHistoryId } from './history-id.js';
import { fetchDetachedBodies, isOwnMessage, summarizeMessage } from './message-decode.js';
import { startPushEndpoint, type GmailNotification } from './push-endpoint.js';
import { PushOidcVerifier } from './push-oidc.js';
import { PubSubApi, type PushConfig } from '../google/pubsub-api.js';

export interface WatcherSettings {
  gmail: GmailConfig & { account: string; topic: string; oauth: NonNullable<GmailConfig['oauth']> };
  hookUrl: string;
  hookToken: string;
  state: PluginState;
  logger: Logger;
  /** how long this process holds the account's watcher lease (default 30 s) */
  leaseMs?: number;
  /** first retry delay; doubles up to `maxRetryMs` */
  retryMs?: number;
  maxRetryMs?: number;
}

type SeenOutcome = 'posted' | 'skipped' | 'rejected' | 'gone' | 'duplicate';

const DAY_MS = 86_400_000;
/** renew this long before the expiration Gmail returned for the watch */
const RENEW_MARGIN_MS = 3_600_000;

/** where new mail starts counting: nothing received before it is ever reported (set at setup or the first watch) */
interface Baseline {
  historyId: string;
  at: number;
}
/** how long a replica holds an account's watcher without renewing (renewed every third) */
const WATCHER_LEASE_MS = 30_000;

/** The hook answered 404: no mapping handles path `gmail`. A configuration fault: kept and retried, never dropped. */
class HookNotRoutedError extends Error {}

/**
 * The Gmail watcher: keeps the Gmail watch alive, receives Pub/Sub pushes, and turns each
 * new message into one POST to the gmail hook. Processing is serialised (one pump), the
 * stored historyId only moves forward, and every handled message id is recorded, so
 * redelivered or overlapping notifications never post a message twice.
 *
 * Several replicas on one store: every one receives pushes (behind the load balancer) and records
 * them durably, but only the holder of the account's watcher lease renews the watch and processes
 * mail. The holder checks every third of the lease for pushes another replica recorded; when it
 * dies, another takes the lease once it runs out.
 */
export class GmailWatcher implements PluginService {
  readonly name = 'gmail-watcher';
  private readonly gmail: GmailApi;
  private readonly pubsub: PubSubApi;
  private readonly oidc?: PushOidcVerifier;
  private readonly log: Logger;
  private server?: http.Server;
  private stopped = false;
  private pumping?: Promise<void>;
  private again = false;
  private pumpFailures = 0;
  private watchFailures = 0;
  private timers = new Set<NodeJS.Timeout>();
  /** message ids whose 404 from the hook was logged with the fix (once each, however often retried) */
  private notRoutedLogged = new Set<string>();
  /** this process's identity on the watcher lease */
  private readonly owner = randomUUID();
  private holder = false;
  /** the first watch of this holder, until it has started the catch-up */
  private watching?: Promise<void>;
  private leaseTimer?: NodeJS.Timeout;
  /** what keeps the watch or the hand-over to herald failing now, for health() */
  private watchProblem?: string;
  private pumpProblem?: string;

  constructor(private readonly settings: WatcherSettings) {
    const { gmail } = settings;
    const token = accessTokenSource(gmail.endpoints.oauthToken, gmail.oauth);
    this.gmail = new GmailApi(gmail.endpoints.gmail, token);
    this.pubsub = new PubSubApi(gmail.endpoints.pubsub, token);
    if (gmail.pushOidc) this.oidc = new PushOidcVerifier(gmail.pushOidc);
    this.log = settings.logger.child({ account: gmail.account });
  }

  /** where the push endpoint listens (its port is known once started, e.g. for port 0) */
  get url(): string | undefined {
    const address = this.server?.address();
    if (!address || typeof address === 'string') return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}${this.settings.gmail.serve.path}`;
  }

  /** resolves once no processing is running (the first catch-up after the watch, a push being handled) */
  async idle(): Promise<void> {
    // the watch a new holder starts ends with the first catch-up: wait for it to begin
    await this.watching;
    while (this.pumping) await this.pumping.catch(() => undefined);
  }

  /**
   * Unhealthy while the watch cannot be made or renewed (a refused token refresh surfaces here,
   * as does an expired watch that cannot be renewed) or while mail cannot be handed to herald's
   * hook. Known only to the process watching the account (the lease holder).
   */
  health(): ServiceHealth | undefined {
    if (!this.holder || this.stopped) return undefined;
    if (this.watchProblem) return { healthy: false, problem: `the Gmail watch of ${this.settings.gmail.account} cannot be renewed (${this.watchFailures} attempts): ${this.watchProblem}` };
    if (this.pumpProblem) return { healthy: false, problem: `mail of ${this.settings.gmail.account} cannot be processed (${this.pumpFailures} attempts): ${this.pumpProblem}` };
    return { healthy: true };
  }

  async start(): Promise<void> {
    this.stopped = false;
    const { serve, pushToken } = this.settings.gmail;
    this.server = await startPushEndpoint({ ...serve, pushToken, oidc: this.oidc, logger: this.log, record: (n) => this.record(n) });
    this.log.info({ url: this.url }, 'gmail push endpoint listening');
    await this.pruneHandled();
    await this.keepLease();
  }

  private get leaseMs(): number {
    return this.settings.leaseMs ?? WATCHER_LEASE_MS;
  }

  /** takes or renews the account's lease; a new holder starts the watch, a holder looks for pushes recorded elsewhere */
  private async keepLease(): Promise<void> {
    if (this.stopped) return;
    try {
      const lease = await takeLease(this.settings.state, this.key('watcher'), this.owner, this.leaseMs);
      const was = this.holder;
      this.holder = lease.owner === this.owner;
      if (this.holder && !was) {
        this.log.info('gmail watcher lease taken: this process watches the account');
        this.watching = this.renewWatch();
      } else if (!this.holder && was) {
        this.log.warn('gmail watcher lease lost to another process');
      } else if (this.holder && (await this.pushedElsewhere())) this.kick();
    } catch (err) {
      this.log.error({ err: describe(err) }, 'gmail watcher lease check failed');
    }
    if (this.stopped) return;
    this.leaseTimer = setTimeout(() => void this.keepLease(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.leaseTimer.unref();
  }

  /** a push recorded (by any replica) past the history already processed */
  private async pushedElsewhere(): Promise<boolean> {
    const [notified, processed] = await Promise.all([
      this.settings.state.get<string>(this.key('notifiedHistoryId')),
      this.settings.state.get<string>(this.key('historyId')),
    ]);
    return notified !== undefined && processed !== undefined && laterHistoryId(processed, notified) !== processed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // let a message being posted finish, but never hold up shutdown for a slow Google call:
    // whatever is cut short is simply handled again after the restart (nothing is marked done early)
    if (this.pumping) await Promise.race([this.pumping.catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
    // another replica takes the account at its next check instead of waiting for the lease to run out
    if (this.holder) await releaseLease(this.settings.state, this.key('watcher'), this.owner).catch(() => {});
    this.holder = false;
  }

  private key(name: string): string {
    return `${name}:${this.settings.gmail.account.toLowerCase()}`;
  }

  private later(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private backoff(failures: number): number {
    const base = this.settings.retryMs ?? 1000;
    return Math.min(base * 2 ** Math.max(0, failures - 1), this.settings.maxRetryMs ?? 5 * 60_000);
  }

  /**
   * Forgets handled-message records older than dedupeDays, now and daily. Safe: history only
   * reports newer mail, and recovery ignores mail received before the window (see recover).
   */
  private async pruneHandled(): Promise<void> {
    try {
      const pruned = await this.settings.state.deleteOlderThan('seen:', Date.now() - this.settings.gmail.dedupeDays * DAY_MS);
      if (pruned) this.log.info({ pruned }, 'gmail handled-message records pruned');
    } catch (err) {
      this.log.error({ err: describe(err) }, 'gmail pruning failed');
    }
    this.later(DAY_MS, () => void this.pruneHandled());
  }

  /**
   * Watch now, then every renewEveryMinutes (and always an hour before the watch's 7-day expiry);
   * a failure is retried with backoff. Each watch's historyId is stored: as the cursor when there
   * is none yet, and as the baseline (first time only) before which no mail is ever reported.
   * Each renewal also checks that the push subscription still exists, and re-creates it if not.
   */
  private async renewWatch(): Promise<void> {
    if (this.stopped || !this.holder) return;
    const { gmail } = this.settings;
    try {
      const watch = await this.gmail.watch(gmail.topic, gmail.label);
      this.watchFailures = 0;
      this.watchProblem = undefined;
      await storeWatchHistoryId(this.settings.state, gmail.account, watch.historyId);
      this.log.info({ expiration: watch.expiration }, 'gmail watch renewed');
      const untilExpiry = watch.expiration ? Number(watch.expiration) - Date.now() - RENEW_MARGIN_MS : Infinity;
      this.later(Math.max(60_000, Math.min(gmail.renewEveryMinutes * 60_000, untilExpiry)), () => void this.renewWatch());
      this.kick();
    } catch (err) {
      this.watchFailures++;
      this.watchProblem = describe(err).message;
      const retryInMs = this.backoff(this.watchFailures);
      this.log.error({ err: describe(err), retryInMs }, 'gmail watch failed; retrying');
      this.later(retryInMs, () => void this.renewWatch());
      return;
    }
    await this.checkSubscription();
  }

  /** A deleted (or, under an old default policy, expired) push subscription would lose all mail silently. */
  private async checkSubscription(): Promise<void> {
    const { gmail } = this.settings;
    const pushConfig = pushConfigOf(gmail);
    if (!gmail.subscription || !pushConfig) return;
    const path = gmail.subscription.startsWith('projects/') ? gmail.subscription : `${projectOf(gmail.topic)}/subscriptions/${gmail.subscription}`;
    try {
      const existing = await this.pubsub.subscription(path);
      if (existing && existing.expirationPolicy !== undefined && !existing.expirationPolicy.ttl) return;
      const outcome = await this.pubsub.ensurePushSubscription(path, gmail.topic, pushConfig);
      if (existing) this.log.warn({ subscription: path, outcome }, 'gmail push subscription could expire; set to never expire');
      else this.log.warn({ subscription: path, outcome }, 'gmail push subscription was gone; re-created');
    } catch (err) {
      this.log.error({ err: describe(err), subscription: path }, 'gmail push subscription check failed; checked again at the next renewal');
    }
  }

  /** Records a push durably (the highest notified history id), then starts processing. */
  private async record(notification: GmailNotification): Promise<void> {
    if (notification.emailAddress.toLowerCase() !== this.settings.gmail.account.toLowerCase()) {
      this.log.warn('gmail push for another mailbox ignored');
      return;
    }
    await this.settings.state.update<string | undefined>(this.key('notifiedHistoryId'), (current) => laterHistoryId(current, notification.historyId));
    this.log.debug({ historyId: notification.historyId }, 'gmail push recorded');
    this.kick();
  }

  /** Runs the pump; pushes arriving meanwhile make it run once more (serialised, coalesced). */
  private kick(): void {
    // not the holder: the push is recorded; the holder picks it up at its next lease check
    if (this.stopped || !this.holder) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.again = false;
        try {
          await this.processNewMail();
          this.pumpFailures = 0;
          this.pumpProblem = undefined;
        } catch (err) {
          this.pumpFailures++;
          this.pumpProblem = describe(err).message;
          const retryInMs = this.backoff(this.pumpFailures);
          // a 404 from the hook was logged with its fix once per message; its retries stay quiet
          if (err instanceof HookNotRoutedError) this.log.debug({ err: describe(err), retryInMs }, 'gmail processing failed; retrying');
          else this.log.error({ err: describe(err), retryInMs }, 'gmail processing failed; retrying');
          this.later(retryInMs, () => this.kick());
          break;
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.pumping = undefined;
    });
  }

  private async processNewMail(): Promise<void> {
    const { state, gmail } = this.settings;
    const start = await state.get<string>(this.key('historyId'));
    if (!start) {
      // a push before the first watch (Pub/Sub keeps pushes queued since setup): no replay of old
      // mail, the baseline is now; history from here on is reported
      const { historyId } = await this.gmail.profile();
      await storeWatchHistoryId(state, gmail.account, historyId);
      this.log.info('gmail: no history id stored yet; starting from now (earlier mail is not reported)');
      return;
    }
    const added: { id: string }[] = [];
    let latest: string | undefined;
    let pageToken: string | undefined;
    do {
      const page = await this.gmail.historyPage(start, gmail.label, pageToken);
      if (page.status === 404) return this.recover('history id too old');
      for (const entry of page.body.history ?? []) for (const item of entry.messagesAdded ?? []) added.push(item.message);
      latest = laterHistoryId(latest, page.body.historyId === undefined ? undefined : String(page.body.historyId));
      pageToken = page.body.nextPageToken;
    } while (pageToken && !this.stopped);
    const ids = [...new Set(added.map((m) => m.id))];
    for (const id of ids) {
      if (this.stopped) return;
      await this.handleMessage(id, latest ?? start);
    }
    await this.advance(latest);
  }

  /** When history is gone (or never known): report the newest unseen messages, then resume from now. */
  private async recover(reason: string): Promise<void> {
    const { gmail } = this.settings;
    this.log.warn({ reason }, 'gmail history unavailable: recovering from the newest messages');
    const profile = await this.gmail.profile();
    const recent = await this.gmail.recentMessages(gmail.label, gmail.recoverMaxMessages);
    // mail received before the dedupe window may have had its record pruned: it is not new, never re-posted;
    // nor is mail received before the baseline (setup, or the first watch)
    const baseline = await this.settings.state.get<Baseline>(this.key('baseline'));
    const receivedAfter = Math.max(Date.now() - gmail.dedupeDays * DAY_MS, baseline?.at ?? 0);
    for (const message of [...recent].reverse()) {
      if (this.stopped) return;
      await this.handleMessage(message.id, profile.historyId, receivedAfter);
    }
    await this.advance(profile.historyId);
  }

  private async advance(historyId: string | undefined): Promise<void> {
    if (!historyId) return;
    await this.settings.state.update<string | undefined>(this.key('historyId'), (current) => laterHistoryId(current, historyId));
  }

  /** Posts one message to the hook unless it was handled before (or arrived before `receivedAfter`). Throws to retry later. */
  private async handleMessage(id: string, historyId: string, receivedAfter?: number): Promise<void> {
    const { state, gmail } = this.settings;
    const seenKey = this.key(`seen:${id}`);
    if (await state.get(seenKey)) return;
    const mark = (outcome: SeenOutcome) => state.set(seenKey, { outcome, at: Date.now() });
    let message;
    try {
      message = await this.gmail.message(id);
    } catch (err) {
      if (err instanceof GoogleApiError && err.status === 404) return mark('gone');
      throw err;
    }
    if (isOwnMessage(message)) {
      this.log.debug({ messageId: id }, 'gmail message skipped (sent or draft)');
      return mark('skipped');
    }
    if (receivedAfter !== undefined && Number(message.internalDate) < receivedAfter) {
      this.log.debug({ messageId: id }, 'gmail message skipped (older than dedupeDays)');
      return mark('skipped');
    }
    const detached = await fetchDetachedBodies(message, (attachmentId) => this.gmail.attachment(id, attachmentId), gmail);
    const summary = summarizeMessage(detached.message, { ...gmail, bodySkipped: detached.skipped });
    const outcome = await this.postToHook(id, { source: 'gmail', account: gmail.account, historyId: message.historyId ?? historyId, messages: [summary] });
    await mark(outcome);
    this.log.info({ messageId: id, outcome }, 'gmail message handled');
  }

  /**
   * One POST per message. Its Idempotency-Key is stable across retries and restarts, so a crash
   * after the hook accepted the message but before it was marked handled makes no second run.
   */
  private async postToHook(messageId: string, payload: unknown): Promise<SeenOutcome> {
    let response: FetchedText;
    try {
      response = await fetchText(this.settings.hookUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.settings.hookToken}`,
          'content-type': 'application/json',
          'idempotency-key': `gmail:${this.settings.gmail.account.toLowerCase()}:${messageId}`,
        },
        body: JSON.stringify(payload),
      });
    } catch (error) {
      throw new Error(`hook ${redactUrl(this.settings.hookUrl)} did not answer: ${(error as Error).message}`);
    }
    if (response.ok) {
      this.notRoutedLogged.delete(messageId);
      return 'posted';
    }
    if (response.status === 404) {
      if (!this.notRoutedLogged.has(messageId)) {
        this.notRoutedLogged.add(messageId);
        this.log.error(
          { messageId, status: 404, hookUrl: redactUrl(this.settings.hookUrl) },
          'gmail hook answered 404: no mapping handles path "gmail". Fix: hooks.presets: add "gmail" (or point hooks.gmail.hookUrl at <hooks.path>/gmail), then restart; the message is kept and retried',
        );
      }
      throw new HookNotRoutedError(`hook ${redactUrl(this.settings.hookUrl)} answered 404`);
    }
    // 422: the hook has this Idempotency-Key for another body: an earlier post of this message was taken
    // (a crash came before it was recorded) and the message has changed since (labels, historyId)
    if (response.status === 422) {
      this.log.info({ messageId }, 'gmail message was posted before (Idempotency-Key known to the hook); not posted again');
      return 'duplicate';
    }
    // a refused message (bad payload for the mapping) would block the mailbox forever: record and move on;
    // auth, an earlier post still in progress (409), throttling and server errors are fixable, so they are retried
    const retryable = [401, 403, 408, 409, 429].includes(response.status) || response.status >= 500;
    if (retryable) throw new Error(`hook ${redactUrl(this.settings.hookUrl)} answered ${response.status}`);
    this.log.error({ status: response.status }, 'gmail hook refused the message; not retried');
    return 'rejected';
  }
}

function redactUrl(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.username = '';
  u.password = '';
  return u.toString();
}

/** errors are logged by message only: Google's messages carry no secrets, request objects might */
function describe(err: unknown): { message: string; status?: number } {
  return err instanceof GoogleApiError ? { message: err.message, status: err.status } : { message: (err as Error).message };
}

/**
 * Records a watch's historyId (setup calls it too): the cursor when none is stored yet (an
 * existing one is kept: it covers mail that arrived while herald was down), and the baseline,
 * the first time only.
 */
export async function storeWatchHistoryId(state: PluginState, account: string, historyId: string, now = Date.now()): Promise<void> {
  const who = account.toLowerCase();
  await state.update<string | undefined>(`historyId:${who}`, (current) => current ?? historyId);
  await state.update<Baseline | undefined>(`baseline:${who}`, (current) => current ?? { historyId, at: now });
}

/** the push config the subscription must have, as setup made it; undefined without a push endpoint */
export function pushConfigOf(gmail: { pushEndpoint?: string; pushToken?: string; pushOidc?: { serviceAccountEmail: string; audience: string } }): PushConfig | undefined {
  if (!gmail.pushEndpoint) return undefined;
  const url = new URL(gmail.pushEndpoint);
  if (gmail.pushToken) url.searchParams.set('token', gmail.pushToken);
  return {
    pushEndpoint: url.toString(),
    ...(gmail.pushOidc && { oidcToken: { serviceAccountEmail: gmail.pushOidc.serviceAccountEmail, audience: gmail.pushOidc.audience } }),
  };
}

/** `projects/<p>` of `projects/<p>/topics/<t>` */
function projectOf(topic: string): string {
  return topic.split('/').slice(0, 2).join('/');
}
