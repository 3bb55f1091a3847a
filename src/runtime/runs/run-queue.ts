import type { AgentAction } from '../../mappings/hook-action.js';
import { madeUpSessionKey, type AdmittedRun, type IdempotencyRecord, type Lease, type RunAdmission, type RunRecord, type SessionMessage } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { currentTraceparent, tracingOn } from '../../tracing/tracing.js';
import { runSpan } from './run-span.js';
import { RunAbort } from '../run-abort.js';
import { executeRun } from './execute-run.js';
import { LeaseLost, RunClaims } from './run-claims.js';
import type { NextRuns } from './run-completion.js';
import type { RunContext, RunQueueDeps } from './run-context.js';
import { takePlace, type PassedHistory, type TakenPlace } from './session-chain.js';
import { Slots } from './slots.js';
import { Turns } from './turns.js';

export type { RunQueueDeps } from './run-context.js';

/**
 * Agent runs: recorded durably (queued) before the 202, then claimed from the store with a lease
 * by whichever process has a free slot: this one at once, another replica when this one is busy,
 * any of them when the claimer died (its lease runs out). Each run executes in its own session,
 * at most `maxConcurrent` turns at once per process (a few more claimed while turns are quick,
 * see Slots), aborted at its time limit. The store hands out only the oldest unfinished run of a
 * session, so a conversation's turns go in order across replicas.
 */
export class RunQueue {
  private readonly active = new Map<string, { promise: Promise<void>; abort: RunAbort }>();
  private readonly context: RunContext;

  constructor(private readonly deps: RunQueueDeps) {
    const maxConcurrent = () => deps.config.agents.defaults.maxConcurrent;
    const turns = new Turns(maxConcurrent);
    const slots = new Slots(maxConcurrent, turns, deps.store.runs.claimAhead);
    const completing = new Set<string>();
    const claims = new RunClaims({
      store: deps.store,
      leaseMs: () => deps.config.agents.defaults.leaseMs,
      slots,
      logger: deps.logger,
      onClaimed: (chain) => this.beginChain(chain),
      // a run being completed is left out: its completion ends the lease anyway
      held: () => [...this.active.keys()].filter((id) => !completing.has(id)),
      onLeaseLost: (id) => {
        const run = this.active.get(id);
        if (!run) return;
        deps.logger.warn({ runId: id }, 'run lease lost to another process; abandoning it here');
        run.abort.abort(new LeaseLost());
      },
    });
    this.context = { deps, claims, slots, turns, completing };
  }

  /**
   * `options.id`: an id chosen before dispatch (an Idempotency-Key record points at it);
   * `options.rerunOf`: the run an operator re-runs (the new run is linked to it).
   */
  async submit(action: AgentAction, options: { id?: string; rerunOf?: string }): Promise<string>;
  /**
   * `options.key`: the idempotency key of the request, stored done with its answer in the run's
   * commit (RunsRepo.insertKeyed); undefined when the key is held, and nothing was stored.
   */
  async submit(action: AgentAction, options: { id?: string; key: IdempotencyRecord }): Promise<string | undefined>;
  submit(action: AgentAction, options: { id?: string; rerunOf?: string; key?: IdempotencyRecord } = {}): Promise<string | undefined> {
    const { claims, slots } = this.context;
    let run: RunRecord;
    let claimed: Lease | undefined;
    try {
      run = this.newRun(action, options);
      // a run whose session key was made up here is alone in its session: with a slot free, it is
      // stored already claimed by this process and starts at once (one write instead of two)
      claimed = action.sessionKey === undefined && claims.accepting && slots.taken() < slots.capacity() ? claims.lease() : undefined;
    } catch (error) {
      return Promise.reject(error);
    }
    if (claimed) slots.reserved++;
    slots.arriving++;
    const landed = () => {
      slots.arriving--;
      if (claimed) slots.reserved--;
    };
    let inserting: Promise<boolean | void>;
    try {
      inserting = options.key ? this.deps.store.runs.insertKeyed(run, options.key, claimed) : this.deps.store.runs.insert(run, claimed);
    } catch (error) {
      landed();
      return Promise.reject(error);
    }
    // not an async function: one reaction on the store's promise (each request's run takes this path)
    return inserting.then(
      (stored) => {
        landed();
        // a keyed insert that found its key held stored nothing
        if (stored === false) return undefined;
        if (!claimed) claims.claim();
        else if (claims.accepting) {
          // as stored: claimed at its insert. The record is this call's own (newRun's), and the
          // insert has read it: set in place, not copied
          run.status = 'running';
          run.startedAt = claimed.now;
          this.begin(run, undefined, undefined, false);
        }
        // stopped meanwhile: given back, for the next process
        else return claims.giveBack([run.id]).then(() => run.id);
        return run.id;
      },
      (error: unknown) => {
        landed();
        throw error;
      },
    );
  }

  /**
   * A governed mapping's run (its concurrency, rate, coalescing): the store admits it, queued, or
   * joins it to an open coalescing run, or refuses it (rate-limited); never claimed at once here,
   * since the claim is where its concurrency and start time are kept.
   */
  async admit(action: AgentAction, admission: RunAdmission, options: { id?: string } = {}): Promise<AdmittedRun> {
    const { claims, slots } = this.context;
    slots.arriving++;
    const admitted = await this.deps.store.runs.admit(this.newRun(action, options), admission).finally(() => slots.arriving--);
    if (admitted.type === 'queued') claims.claim();
    return admitted;
  }

  private newRun(action: AgentAction, options: { id?: string; rerunOf?: string }): RunRecord {
    // runs accepted before agentId existed carry none: the default agent, as then
    const agent = (action.agentId && this.deps.agents.get(action.agentId)) || this.deps.agents.default();
    // its id made at its createdAt: SQLite lists it by its primary key (store/sqlite/time-keyed-rows.ts)
    const createdAt = Date.now();
    const id = options.id ?? uuidV7(createdAt);
    const run: RunRecord = {
      id,
      status: 'queued',
      agentId: agent.id,
      name: action.name,
      sessionKey: action.sessionKey ?? madeUpSessionKey(id),
      message: action.message,
      action: { ...action },
      reply: null,
      error: null,
      createdAt,
      startedAt: null,
      finishedAt: null,
      rerunOf: options.rerunOf ?? null,
    };
    // the trace the run is made in (its request's), stored with it; nothing while tracing is off
    const traceContext = currentTraceparent();
    if (traceContext !== undefined) run.traceContext = traceContext;
    return run;
  }

  /** claims into free slots now, not at the next poll (a run queued again by an approval) */
  claimNow(): void {
    this.context.claims.claim();
  }

  /** starts claiming: what this or a dead process left unfinished is taken as leases allow */
  start(): void {
    this.context.claims.start();
  }

  /**
   * An operator's cancel of a queued run: the store records it cancelled, so no process ever
   * claims it. False when it is not queued any more (running or finished): a running model call
   * is not interrupted, its effects may already be on their way.
   */
  async cancel(id: string): Promise<boolean> {
    if (!(await this.deps.store.runs.cancel(id, Date.now()))) return false;
    this.deps.logger.info({ runId: id }, 'run cancelled by an operator');
    return true;
  }

  /**
   * Starts a claimed run straight from the callback that claimed it. No burst of runs can starve the
   * HTTP server that way: a run ends by awaiting its completion's commit (the group commit's
   * setImmediate on SQLite, the network on PostgreSQL), so each place runs one run per commit.
   * Not from a setImmediate: the runs would then complete from the check phase, where the commit
   * they ask for waits for the next event-loop turn, and under a stream of requests every other
   * group commit would carry no completion.
   */
  private begin(run: RunRecord, history: SessionMessage[] | undefined, ahead: Promise<PassedHistory> | undefined, hasBehind: boolean): Promise<PassedHistory> | undefined {
    const abort = new RunAbort();
    const place = takePlace(this.context.slots, ahead, hasBehind);
    // its first steps run now, up to its first wait; it leaves the map only after one
    this.active.set(run.id, { promise: this.execute(run, abort, history, place), abort });
    return place.passed;
  }

  /**
   * the run, then what its completion claimed into its place; its faults are logged, never thrown.
   * Not an async function: one reaction on the run's promise, where an async function's promise
   * and its await were a step more for every run
   */
  private execute(run: RunRecord, abort: RunAbort, history: SessionMessage[] | undefined, place: TakenPlace): Promise<void> {
    let running: Promise<NextRuns | undefined>;
    try {
      // the span's closure made only while tracing is on
      running = tracingOn() ? runSpan(run, () => executeRun(this.context, run, abort, history, place)) : executeRun(this.context, run, abort, history, place);
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (next) => this.ended(run.id, place, next),
      (error: unknown) => {
        this.deps.logger.error({ err: error, runId: run.id }, 'run bookkeeping failed');
        return this.ended(run.id, place, undefined);
      },
    );
  }

  /** a run ended: it leaves its place to what its completion claimed; a promise only when runs are given back (a stop) */
  private ended(id: string, place: TakenPlace, next: NextRuns | undefined): Promise<void> | undefined {
    try {
      this.active.delete(id);
      place.leave();
      return this.continueWith(next)?.catch((err: unknown) => this.givingBackFailed(err));
    } catch (err) {
      this.givingBackFailed(err);
    }
    return undefined;
  }

  private givingBackFailed(err: unknown): void {
    this.deps.logger.warn({ err }, 'giving a claimed run back failed; it is retaken when its lease runs out');
  }

  /** a run ended: the runs its completion claimed into its place take that place, else a claim fills it */
  private continueWith(next: NextRuns | undefined): Promise<void> | void {
    const { claims } = this.context;
    if (!next) claims.claim();
    else if (claims.accepting) this.beginChain(next.runs, next.history);
    // stopped meanwhile: given back, for the next process
    else return claims.giveBack(next.runs.map((r) => r.id));
  }

  /** a run, then the runs of its session claimed behind it, each starting when the one ahead passes its history on */
  private beginChain(runs: RunRecord[], history?: SessionMessage[]): void {
    // by index: no array of the runs behind made for every claim
    let ahead = this.begin(runs[0]!, history, undefined, runs.length > 1);
    for (let i = 1; i < runs.length; i++) ahead = this.begin(runs[i]!, undefined, ahead, i < runs.length - 1);
  }

  /** resolves when this process runs nothing and the store had nothing more for it (tests) */
  async idle(): Promise<void> {
    const { claims } = this.context;
    for (;;) {
      await claims.inFlight;
      if (this.active.size === 0) {
        // one more look: a run queued since the last claim
        claims.claim();
        await claims.inFlight;
        if (this.active.size === 0) return;
      }
      await Promise.all([...this.active.values()].map((a) => a.promise));
    }
  }

  /** stops claiming; runs still going after `graceMs` are aborted and given back, queued */
  async stop(graceMs: number): Promise<void> {
    await this.context.claims.stop();
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([this.settled(), grace]);
    for (const { abort } of this.active.values()) abort.abort(new Error('shutting down'));
    await this.settled();
  }

  /** until no run is active: a run ending may pass its slot to one its completion claimed */
  private async settled(): Promise<void> {
    while (this.active.size) await Promise.all([...this.active.values()].map((a) => a.promise));
  }
}

