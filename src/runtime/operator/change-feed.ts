import type { Store, StoreSignals } from '../../store/port.js';
import { WorkLoop } from '../work/work-loop.js';

/**
 * what the operator sees change: one store signal topic each. All but `tools` and `trouble` are
 * told by the store's writes (withChangeFeed); `tools` (an MCP server's state or tools) and
 * `trouble` (a refused reload, a model provider or channel turning unhealthy or recovering) by the gateway.
 */
export const CHANGE_KINDS = ['receipts', 'runs', 'events', 'deliveries', 'sessions', 'usage', 'tools', 'alerts', 'trouble'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** the signal topic of a kind (no `:`: PgSignals separates the topic from its sender with one) */
export const changeTopic = (kind: ChangeKind): string => `changed.${kind}`;

/**
 * A burst of writes (a load of webhooks) is told once per window and kind, at its start and once
 * more at its end: on PostgreSQL every signal is a NOTIFY taking a pool connection, and the console
 * only needs to know that something changed, not how often.
 */
const WINDOW_MS = 200;

export class ChangePublisher {
  /** per kind, one publish per window: the work loop spaces them */
  private readonly kinds = new Map<ChangeKind, WorkLoop>();
  private closed = false;

  constructor(private readonly signals: StoreSignals) {}

  changed(kinds: readonly ChangeKind[]): void {
    if (this.closed) return;
    for (const kind of kinds) this.loopOf(kind).wake();
  }

  private loopOf(kind: ChangeKind): WorkLoop {
    let loop = this.kinds.get(kind);
    if (!loop) {
      loop = new WorkLoop({ pass: async () => this.signals.publish(changeTopic(kind)), failed: () => {}, gapMs: WINDOW_MS });
      loop.start({ wake: false });
      this.kinds.set(kind, loop);
    }
    return loop;
  }

  close(): void {
    this.closed = true;
    for (const loop of this.kinds.values()) void loop.stop();
    this.kinds.clear();
  }
}

type Method = (...args: never[]) => Promise<unknown>;
/** per method: the kinds its result says changed (none when it changed nothing) */
type Taps<R> = { [K in keyof R]?: R[K] extends (...args: never[]) => Promise<infer T> ? (result: T) => readonly ChangeKind[] : never };

/**
 * the repo with the tapped methods telling the publisher, after their write committed: by the
 * store's `afterCommit` where it can (no promise per write), else by a reaction to the write's promise
 */
function tapped<R extends object>(repo: R, publisher: ChangePublisher, taps: Taps<R>, afterCommit: Store['afterCommit']): R {
  const out = { ...repo } as Record<string, unknown>;
  for (const [name, kindsOf] of Object.entries(taps) as [string, (result: unknown) => readonly ChangeKind[]][]) {
    const method = (repo as Record<string, Method>)[name]!;
    const tell = (result: unknown) => publisher.changed(kindsOf(result));
    // the calls a store writes together may answer with one promise (the usage rows of one commit):
    // tapped once and answered alike, so the callers still see one promise (UsageRecorder watches it once)
    let lastWrite: Promise<unknown> | undefined;
    let lastTapped: Promise<unknown> | undefined;
    out[name] = (...args: never[]) => {
      const write = method.apply(repo, args);
      if (write === lastWrite) return lastTapped;
      lastWrite = write;
      if (afterCommit?.(write, tell)) return (lastTapped = write);
      return (lastTapped = write.then((result) => {
        tell(result);
        return result;
      }));
    };
  }
  return out as R;
}

const always = (...kinds: ChangeKind[]) => () => kinds;
const ifAny = (kind: ChangeKind) => (rows: unknown[]) => (rows.length ? [kind] : []);
const ifTrue = (...kinds: ChangeKind[]) => (done: boolean) => (done ? kinds : []);
const ifSet = (kind: ChangeKind) => (value: unknown) => (value === undefined ? [] : [kind]);

/**
 * The store, telling its own signals whenever a receipt, run, event, session message or delivery
 * is written: the live console's change feed. Tapping the port itself (not each use case) means
 * no writer is missed, an operator's action or another replica's included: on PostgreSQL the
 * signals cross replicas by LISTEN/NOTIFY, so a console on one herald sees the work of every other.
 */
export function withChangeFeed<S extends Store>(store: S): S {
  const publisher = new ChangePublisher(store.signals);
  const afterCommit = store.afterCommit?.bind(store);
  const tap = <R extends object>(repo: R, taps: Taps<R>) => tapped(repo, publisher, taps, afterCommit);
  return {
    ...store,
    receipts: tap(store.receipts, {
      record: always('receipts'),
      prune: (removed) => (removed.payloads || removed.receipts ? ['receipts'] : []),
    }),
    runs: tap(store.runs, {
      insert: always('runs'),
      insertKeyed: ifTrue('runs'),
      claim: ifAny('runs'),
      release: always('runs'),
      cancel: ifTrue('runs'),
      requeueRunning: (count) => (count ? ['runs'] : []),
      // the run's transcript and its summary event are written in the same transaction
      complete: ifTrue('runs', 'events', 'sessions'),
      completeAndClaimNext: ({ finished }) => (finished ? ['runs', 'events', 'sessions'] : []),
      // a run's tool calls (and the approvals they wait for) are shown with the runs
      checkpoint: ifTrue('runs'),
      pauseForApproval: ifTrue('runs'),
    }),
    // a decision may queue its run again (its last undecided call): the console hears of it as of a run inserted
    toolCalls: tap(store.toolCalls, {
      start: always('runs'),
      finish: always('runs'),
      decide: ifSet('runs'),
    }),
    // a server's question asked or answered: shown with the approvals, which follow the runs
    questions: tap(store.questions, { create: always('runs'), settle: ifSet('runs') }),
    events: tap(store.events, {
      enqueue: ifSet('events'),
      claimPending: ifAny('events'),
      complete: always('events'),
      release: always('events'),
      requeueProcessing: (count) => (count ? ['events'] : []),
    }),
    idempotency: tap(store.idempotency, { completeWithEvent: always('events'), insertWithEvent: ifSet('events') }),
    sessions: tap(store.sessions, { append: always('sessions'), appendMany: always('sessions') }),
    usage: tap(store.usage, { record: always('usage') }),
    // an incident opened or closed: the Overview's trouble lists the open ones
    alerts: tap(store.alerts, { raise: ifSet('alerts'), resolve: ifSet('alerts') }),
    deliveries: tap(store.deliveries, {
      insert: ifTrue('deliveries'),
      claim: ifSet('deliveries'),
      partSent: ifTrue('deliveries'),
      delivered: ifTrue('deliveries'),
      retryAt: ifTrue('deliveries'),
      failed: ifTrue('deliveries'),
      requeue: ifTrue('deliveries'),
      abandon: ifTrue('deliveries'),
      release: always('deliveries'),
      requeueSending: (count) => (count ? ['deliveries'] : []),
    }),
    async close() {
      publisher.close();
      await store.close();
    },
  };
}
