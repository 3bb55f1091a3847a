import type { StateRepo } from '../../store/port.js';

const PREFIX = 'mcp-event:';
/** an event is kept this long for a client to come back for it; past it, a resumed stream replays nothing older */
export const EVENTS_KEPT_MS = 10 * 60_000;
/** how often this process removes the expired events of every session (one statement, not one per event) */
const TRIM_EVERY_MS = 30_000;

/** a stream id as the SDK makes them (a UUID, or `_GET_stream` for the standalone one), then a 16-digit sequence */
const EVENT_ID = /^([A-Za-z0-9_-]{1,64})\.(\d{16})$/;

/** the SDK's EventStore (server/webStandardStreamableHttp.d.ts), written here so runtime does not depend on the transport */
export interface McpEventStore {
  storeEvent(streamId: string, message: object): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(lastEventId: string, options: { send: (eventId: string, message: never) => Promise<void> }): Promise<string>;
}

/**
 * The events a session's SSE streams were sent, kept in the store's state (shared by replicas) so
 * a client that lost its stream (a dropped connection, a replica gone) reconnects with
 * `Last-Event-ID` through any replica and is sent what it missed (MCP's transport spec,
 * "Resumability and Redelivery"). Keyed by session, so a session only ever replays its own; an
 * event id is its stream and a sequence (the clock's milliseconds and a counter: a stream
 * continued on another replica after a replay sorts after what the first replica wrote, as far as
 * the replicas' clocks agree). Bounded: each event expires after EVENTS_KEPT_MS, and a closed
 * session's are removed with it.
 */
export class StoredEvents {
  private counter = 0;
  private lastTrim = 0;

  constructor(private readonly state: StateRepo) {}

  /** the SDK's EventStore of one session */
  of(sessionId: () => string | undefined): McpEventStore {
    const keyOf = (eventId: string) => `${PREFIX}${sessionId() ?? ''}:${eventId}`;
    return {
      storeEvent: async (streamId, message) => {
        const eventId = `${streamId}.${this.sequence()}`;
        // a priming event (empty, one per POST stream) only marks a place to resume from: its id
        // names its stream and sorts before what follows it, so replaying after it needs no row
        if (!('jsonrpc' in message)) return eventId;
        await this.state.set(keyOf(eventId), message);
        await this.trim();
        return eventId;
      },
      getStreamIdForEventId: async (eventId) => EVENT_ID.exec(eventId)?.[1],
      replayEventsAfter: async (lastEventId, { send }) => {
        const streamId = EVENT_ID.exec(lastEventId)?.[1];
        if (!streamId) return '';
        const after = keyOf(lastEventId);
        for (const { key, value } of await this.state.list<Record<string, unknown>>(keyOf(`${streamId}.`))) {
          // a priming event stored by an earlier herald only marks a place to resume from; nothing to replay
          if (key <= after || !value || !('jsonrpc' in value)) continue;
          await send(key.slice(key.lastIndexOf(':') + 1), value as never);
        }
        return streamId;
      },
    };
  }

  /** a closed session's events, removed */
  async forget(sessionId: string): Promise<void> {
    await this.state.deleteOlderThan(`${PREFIX}${sessionId}:`, Number.MAX_SAFE_INTEGER);
  }

  private sequence(): string {
    this.counter = (this.counter + 1) % 1000;
    return String(Date.now() * 1000 + this.counter).padStart(16, '0');
  }

  private async trim(now = Date.now()): Promise<void> {
    if (now - this.lastTrim < TRIM_EVERY_MS) return;
    this.lastTrim = now;
    await this.state.deleteOlderThan(PREFIX, now - EVENTS_KEPT_MS);
  }
}
