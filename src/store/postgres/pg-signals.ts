import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LocalSignals } from '../local-signals.js';
import type { StoreSignals } from '../port.js';
import { prepared, query } from './pg-pool.js';

/** how long the listener waits before connecting again after losing its connection */
const RECONNECT_MS = 1000;

/** every topic waiting, one notification each, in one statement (one round trip and one commit) */
const NOTIFY = prepared('notify', 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload');

/** the least time between two NOTIFY statements */
const NOTIFY_GAP_MS = 100;

/**
 * Signals between replicas over LISTEN/NOTIFY, on one channel per schema (deployments sharing a
 * database never hear each other). This process's listeners are told at once; the others through
 * a NOTIFY: one statement in flight at most, one per NOTIFY_GAP_MS, carrying every topic published
 * since the last (a burst of wakes, runs and receipts costs a few statements, not one per write
 * or per topic).
 * The listening connection reconnects by itself; after a gap every topic fires once, since a
 * notification sent meanwhile is lost.
 */
export class PgSignals implements StoreSignals {
  private readonly local = new LocalSignals();
  private readonly self = randomUUID();
  private readonly channel: string;
  /** the topics published since the last NOTIFY was sent */
  private readonly waiting = new Set<string>();
  /** a NOTIFY is on its way or waits out its gap */
  private sending = false;
  private listener?: pg.Client;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    schema: string,
  ) {
    this.channel = `herald_${schema}`.slice(0, 63);
  }

  async start(): Promise<void> {
    await this.listen().catch(() => this.reconnectLater());
  }

  publish(topic: string): void {
    this.local.publish(topic);
    this.waiting.add(topic);
    if (!this.sending) this.send();
  }

  private send(): void {
    const payloads = [...this.waiting].map((topic) => `${topic}:${this.self}`);
    this.waiting.clear();
    this.sending = true;
    const sentAt = Date.now();
    query(this.pool, NOTIFY, [this.channel, payloads])
      .catch(() => {}) // best effort: the others poll for the work itself
      .finally(() => {
        if (!this.waiting.size || this.closed) return void (this.sending = false);
        // a NOTIFY commits under a lock every NOTIFY of the database takes: under load one
        // statement per gap, not one per write (the others hear a burst NOTIFY_GAP_MS later at most)
        setTimeout(() => (this.closed ? (this.sending = false) : this.send()), Math.max(0, NOTIFY_GAP_MS - (Date.now() - sentAt))).unref();
      });
  }

  subscribe(topic: string, listener: () => void): () => void {
    return this.local.subscribe(topic, listener);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.clientConfig);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      const [topic, sender] = (message.payload ?? '').split(':');
      if (topic && sender !== this.self) this.local.publish(topic);
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    if (this.closed) return void client.end().catch(() => {});
    const reconnected = this.listener === undefined && this.retry !== undefined;
    this.retry = undefined;
    this.listener = client;
    if (reconnected) for (const topic of this.local.topics()) this.local.publish(topic);
  }

  private lost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    client.end().catch(() => {});
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.listen().catch(() => this.reconnectLater());
    }, RECONNECT_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
  }
}
