import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LocalSignals } from '../local-signals.js';
import type { StoreSignals } from '../port.js';
import { prepared, query } from './pg-pool.js';

/** how long the listener waits before connecting again after losing its connection */
const RECONNECT_MS = 1000;

const NOTIFY = prepared('notify', 'SELECT pg_notify($1, $2)');

/** the least time between two NOTIFYs of one topic */
const NOTIFY_GAP_MS = 100;

/**
 * Signals between replicas over LISTEN/NOTIFY, on one channel per schema (deployments sharing a
 * database never hear each other). This process's listeners are told at once; the others through
 * a NOTIFY, at most one in flight per topic and one per NOTIFY_GAP_MS (a burst of wakes costs a few
 * NOTIFYs, not N).
 * The listening connection reconnects by itself; after a gap every topic fires once, since a
 * notification sent meanwhile is lost.
 */
export class PgSignals implements StoreSignals {
  private readonly local = new LocalSignals();
  private readonly self = randomUUID();
  private readonly channel: string;
  private readonly sending = new Map<string, boolean>();
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
    if (this.sending.has(topic)) {
      this.sending.set(topic, true);
      return;
    }
    const send = (): void => {
      this.sending.set(topic, false);
      const sentAt = Date.now();
      query(this.pool, NOTIFY, [this.channel, `${topic}:${this.self}`])
        .catch(() => {}) // best effort: the others poll for the work itself
        .finally(() => {
          if (!this.sending.get(topic) || this.closed) return void this.sending.delete(topic);
          // a NOTIFY commits under a lock every NOTIFY of the database takes: under load one per
          // topic per gap, not one per write (the others hear a burst NOTIFY_GAP_MS later at most)
          setTimeout(send, Math.max(0, NOTIFY_GAP_MS - (Date.now() - sentAt))).unref();
        });
    };
    send();
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
