import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LocalSignals } from '../local-signals.js';
import type { StoreSignals } from '../port.js';
import { query } from './pg-pool.js';

/** how long the listener waits before connecting again after losing its connection */
const RECONNECT_MS = 1000;

/**
 * Signals between replicas over LISTEN/NOTIFY, on one channel per schema (deployments sharing a
 * database never hear each other). This process's listeners are told at once; the others through
 * a NOTIFY, at most one in flight per topic (a burst of wakes costs one or two NOTIFYs, not N).
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
    this.sending.set(topic, false);
    const send = (): void => {
      query(this.pool, 'SELECT pg_notify($1, $2)', [this.channel, `${topic}:${this.self}`])
        .catch(() => {}) // best effort: the others poll for the work itself
        .finally(() => {
          if (this.sending.get(topic) && !this.closed) {
            this.sending.set(topic, false);
            send();
          } else this.sending.delete(topic);
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
