import type { StateRepo } from '../../store/port.js';

const PREFIX = 'mcp-session:';
/** a session's last-seen time is written at most this often: not one store write per request */
const TOUCH_EVERY_MS = 60_000;

/** what another replica needs to serve a session it never saw: its key, and what its client said in `initialize` */
export interface StoredSession {
  /** the API key's name: the session is that key's alone */
  key: string;
  /** the `initialize` request's params as the client sent them (protocol version, capabilities, client name and version) */
  initialize: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: { name: string; version: string } };
  createdAt: number;
  lastSeenAt: number;
}

/**
 * The /mcp sessions in the store's state, shared by the replicas on one database: a request
 * carrying an `Mcp-Session-Id` this process never saw (its replica stopped, the load balancer
 * chose another) is served from what is kept here. A session unseen for `sessionIdleMinutes`
 * expires here as in every process; DELETE /mcp removes it at once.
 */
export class StoredSessions {
  private readonly touched = new Map<string, number>();
  private lastExpired = 0;

  constructor(
    private readonly state: StateRepo,
    private readonly idleMs: () => number,
  ) {}

  async opened(id: string, session: Omit<StoredSession, 'lastSeenAt'>): Promise<void> {
    await this.state.set(PREFIX + id, { ...session, lastSeenAt: session.createdAt });
    this.touched.set(id, session.createdAt);
    if (session.createdAt - this.lastExpired < TOUCH_EVERY_MS) return;
    this.lastExpired = session.createdAt;
    await this.expire(session.createdAt);
  }

  /** the session, if it is kept and not idle past sessionIdleMinutes */
  async get(id: string, now = Date.now()): Promise<StoredSession | undefined> {
    const session = await this.state.get<StoredSession>(PREFIX + id);
    return session && now - session.lastSeenAt < this.idleMs() ? session : undefined;
  }

  /** a request on the session: its last-seen time, written when the one kept is a minute old */
  async seen(id: string, now = Date.now()): Promise<void> {
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    await this.state.update<StoredSession | null>(PREFIX + id, (kept) => (kept ? { ...kept, lastSeenAt: Math.max(kept.lastSeenAt, now) } : null));
  }

  /** the session closed by its client (DELETE /mcp): no replica serves it again */
  async closed(id: string): Promise<void> {
    this.touched.delete(id);
    await this.state.delete(PREFIX + id);
  }

  /** this process let go of its copy (idle, shutdown): another replica may still serve it */
  released(id: string): void {
    this.touched.delete(id);
  }

  /** the sessions idle past sessionIdleMinutes everywhere, removed; how many */
  async expire(now = Date.now()): Promise<number> {
    return this.state.deleteOlderThan(PREFIX, now - this.idleMs());
  }
}
