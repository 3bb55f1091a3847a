import { HeraldError } from '../../errors.js';
import type { McpEndpointConfig } from '../../config/sections/mcp-endpoint-schema.js';
import type { ApiPrincipal } from '../../accounts/api-keys.js';

/** what a session holds open: the SDK's server and transport, closed together */
export interface SessionHandle {
  close(): Promise<void>;
  /** tells the client its tools changed (notifications/tools/list_changed) */
  toolsChanged(): Promise<void>;
  /** tells the client a subscribed resource changed, or the list did */
  resourcesChanged(uris: readonly string[]): Promise<void>;
}

/** one MCP client connected through /mcp */
export interface McpSession {
  id: string;
  principal: ApiPrincipal;
  /** the client's name and version from initialize */
  client?: { name: string; version: string };
  createdAt: number;
  lastSeenAt: number;
  /** requests being answered: a session with one is never idle */
  inFlight: number;
  /** tools/call requests answered */
  calls: number;
  handle: SessionHandle;
}

/** what GET /admin/mcp/sessions shows of a session: never its id's secret-like use as a capability beyond this process */
export interface McpSessionView {
  id: string;
  key: string;
  client: { name: string; version: string } | null;
  createdAt: string;
  lastSeenAt: string;
  calls: number;
}

/**
 * The MCP sessions this process holds, bounded: per key (`platform.mcp.maxSessionsPerKey`, 429)
 * and in all (`maxSessions`, 503), and closed after `sessionIdleMinutes` without a request. A
 * session is its key's alone: another key presenting its id is told it does not exist.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly perKey = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly config: () => McpEndpointConfig,
    private readonly onChange?: () => void,
  ) {}

  /** refuses a new session past a cap (nothing opened); else nothing */
  admit(principal: ApiPrincipal): void {
    const { maxSessionsPerKey, maxSessions } = this.config();
    if ((this.perKey.get(principal.name) ?? 0) >= maxSessionsPerKey) {
      throw new HeraldError('HERALD_RATE_LIMITED', `API key "${principal.name}" holds ${maxSessionsPerKey} MCP sessions (platform.mcp.maxSessionsPerKey): close one (DELETE /mcp) or let one idle out.`, { headers: { 'Retry-After': '60' } });
    }
    if (this.sessions.size >= maxSessions) {
      throw new HeraldError('HERALD_UNAVAILABLE', `herald holds ${maxSessions} MCP sessions (platform.mcp.maxSessions); retry later.`, { headers: { 'Retry-After': '60' } });
    }
  }

  add(session: McpSession): void {
    this.admit(session.principal);
    this.sessions.set(session.id, session);
    this.perKey.set(session.principal.name, (this.perKey.get(session.principal.name) ?? 0) + 1);
    this.startSweep();
    this.onChange?.();
  }

  /** the session of this id, if it is `principal`'s key's */
  get(id: string, principal: ApiPrincipal): McpSession | undefined {
    const session = this.sessions.get(id);
    return session && session.principal.name === principal.name ? session : undefined;
  }

  /** forgets the session (its transport closed: a DELETE, an idle sweep, a shutdown) */
  forget(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    const left = (this.perKey.get(session.principal.name) ?? 1) - 1;
    if (left > 0) this.perKey.set(session.principal.name, left);
    else this.perKey.delete(session.principal.name);
    this.onChange?.();
  }

  all(): McpSession[] {
    return [...this.sessions.values()];
  }

  /** open sessions by key, for /metrics */
  countsByKey(): Map<string, number> {
    return new Map(this.perKey);
  }

  view(): McpSessionView[] {
    return this.all().map((s) => ({
      id: s.id,
      key: s.principal.name,
      client: s.client ?? null,
      createdAt: new Date(s.createdAt).toISOString(),
      lastSeenAt: new Date(s.lastSeenAt).toISOString(),
      calls: s.calls,
    }));
  }

  /** tells every client its tools may have changed (a reload changed grants or servers, a server's list changed) */
  async toolsChanged(): Promise<void> {
    await Promise.all(this.all().map((s) => s.handle.toolsChanged().catch(() => undefined)));
  }

  async resourcesChanged(uris: readonly string[]): Promise<void> {
    await Promise.all(this.all().map((s) => s.handle.resourcesChanged(uris).catch(() => undefined)));
  }

  /** closes sessions idle past sessionIdleMinutes */
  async sweep(now = Date.now()): Promise<number> {
    const idleMs = this.config().sessionIdleMinutes * 60_000;
    const idle = this.all().filter((s) => s.inFlight === 0 && now - s.lastSeenAt >= idleMs);
    await Promise.all(idle.map((s) => this.close(s)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all(this.all().map((s) => this.close(s)));
  }

  private async close(session: McpSession): Promise<void> {
    this.forget(session.id);
    await session.handle.close().catch(() => undefined);
  }

  private startSweep(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), 60_000);
    this.timer.unref();
  }
}
