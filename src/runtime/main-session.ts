import type { EventOutcome, FireEvent, IdempotencyRecord, Store, SystemEvent } from '../store/port.js';

export const MAIN_SESSION = 'main';
/** the queue stays small: an agent waking to hundreds of stale events helps nobody */
export const MAX_PENDING_EVENTS = 20;

/** Where the main session last delivered to: `channel: "last"` and a missing `to` resolve here. */
export interface DeliveryRoute {
  channel: string;
  to: string;
}

const LAST_ROUTE_KEY = 'main:lastRoute';

/** The main session: a durable queue of system events the heartbeat turns into agent turns. */
export class MainSession {
  constructor(
    private readonly store: Store,
    /** told after each enqueue (the drop watch checks whether the queue overflowed) */
    private readonly onEnqueued?: () => void,
  ) {}

  /** durable before it returns; undefined when it repeated the previous event */
  async enqueueSystemEvent(text: string): Promise<SystemEvent | undefined> {
    const event = await this.store.events.enqueue(MAIN_SESSION, text, MAX_PENDING_EVENTS);
    this.onEnqueued?.();
    return event;
  }

  /**
   * The event and the completion of the idempotency key that carried it, in one commit, so a
   * crash between them cannot make a retry store the event twice.
   */
  async enqueueSystemEventCompleting(text: string, key: { scope: string; key: string }, response: (outcome: EventOutcome) => { status: number; body: unknown }): Promise<EventOutcome> {
    const stored = (outcome: EventOutcome) => {
      const answer = response(outcome);
      return { status: answer.status, body: JSON.stringify(answer.body) };
    };
    return this.store.idempotency.completeWithEvent(key.scope, key.key, stored, { session: MAIN_SESSION, text, maxPending: MAX_PENDING_EVENTS });
  }

  /**
   * A keyed wake's event and its key, stored done, in one commit, when nobody holds the key
   * (IdempotencyRepo.insertWithEvent); undefined when someone does, and nothing was stored.
   */
  async enqueueSystemEventKeyed(text: string, key: Omit<IdempotencyRecord, 'status' | 'responseStatus' | 'responseBody'>, response: (outcome: EventOutcome) => { status: number; body: unknown }): Promise<EventOutcome | undefined> {
    const stored = (outcome: EventOutcome) => {
      const answer = response(outcome);
      return { status: answer.status, body: JSON.stringify(answer.body) };
    };
    const outcome = await this.store.idempotency.insertWithEvent(key, stored, { session: MAIN_SESSION, text, maxPending: MAX_PENDING_EVENTS });
    if (outcome === 'queued') this.onEnqueued?.();
    return outcome;
  }

  /**
   * The event of a claimed schedule fire and the fire's mark, in one commit, so a fire retaken
   * after a crash adds its event once. `made: false`: the fire was no longer claimed (another
   * claimer made it) and nothing was added.
   */
  async enqueueSystemEventForFire(text: string, fire: { scheduleId: string; dueAt: number }): Promise<FireEvent> {
    const made = await this.store.schedules.settleFireWithEvent(fire.scheduleId, fire.dueAt, { session: MAIN_SESSION, text, maxPending: MAX_PENDING_EVENTS });
    if (made.made) this.onEnqueued?.();
    return made;
  }

  lastRoute(): Promise<DeliveryRoute | undefined> {
    return this.store.state.get<DeliveryRoute>(LAST_ROUTE_KEY);
  }

  setLastRoute(route: DeliveryRoute): Promise<void> {
    return this.store.state.set(LAST_ROUTE_KEY, route);
  }
}
