/**
 * The storage port: what the rest of herald asks of a store. The SQLite adapter
 * (`store/sqlite/`) is the default; every method is async so a networked adapter
 * (PostgreSQL) fits behind the same port. Times are epoch milliseconds.
 */
export type EventStatus = 'pending' | 'processing' | 'done' | 'dropped';

export interface SystemEvent {
  id: number;
  session: string;
  text: string;
  status: EventStatus;
  createdAt: number;
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'timed_out';

export interface RunRecord {
  id: string;
  status: RunStatus;
  agentId: string;
  name: string;
  sessionKey: string;
  /** the message as received, never the safety-wrapped form */
  message: string;
  /** the whole validated action, so a run can resume after a restart */
  action: Record<string, unknown>;
  reply: string | null;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface SessionMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  createdAt: number;
  runId?: string | null;
  meta?: Record<string, unknown> | null;
}

export interface EventsRepo {
  /** adds a pending event unless it repeats the session's previous one; keeps at most `maxPending` pending */
  enqueue(session: string, text: string, maxPending: number): Promise<SystemEvent | undefined>;
  /** marks the session's pending events processing and returns them, oldest first */
  claimPending(session: string): Promise<SystemEvent[]>;
  complete(ids: number[]): Promise<void>;
  /** after a crash: processing events become pending again */
  requeueProcessing(): Promise<void>;
  list(session: string, limit: number): Promise<SystemEvent[]>;
  countPending(session: string): Promise<number>;
}

export interface RunsRepo {
  insert(run: RunRecord): Promise<void>;
  get(id: string): Promise<RunRecord | undefined>;
  markRunning(id: string, at: number): Promise<void>;
  finish(id: string, status: RunStatus, fields: { reply?: string | null; error?: string | null; at: number }): Promise<void>;
  /** queued and running runs, oldest first: what must resume after a restart */
  unfinished(): Promise<RunRecord[]>;
}

export interface SessionsRepo {
  append(sessionKey: string, message: SessionMessage): Promise<void>;
  messages(sessionKey: string, limit?: number): Promise<SessionMessage[]>;
  exists(sessionKey: string): Promise<boolean>;
}

/** small durable key/value state (plugin state, the main session's last route, ...) */
export interface StateRepo {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
}

export interface Store {
  events: EventsRepo;
  runs: RunsRepo;
  sessions: SessionsRepo;
  state: StateRepo;
  close(): Promise<void>;
}
