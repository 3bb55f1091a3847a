import { errorDetail, verboseErrors } from '../log/log-detail.js';
import { providerFailureFields } from '../models/provider-failure.js';
import { randomUUID } from 'node:crypto';
import { uuidV7 } from '../time/uuid-v7.js';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { completeAgentTurn, type AgentTurnDeps } from '../agents/agent-turn.js';
import { turnModelRefs } from '../agents/turn-prompt.js';
import type { AgentAction } from '../mappings/hook-action.js';
import type { CompletedRun, RunCompletion, RunRecord, SessionMessage, Store } from '../store/port.js';
import type { Heartbeat } from './heartbeat.js';
import { MAIN_SESSION, MAX_PENDING_EVENTS, type MainSession } from './main-session.js';
import { isHeartbeatAck, type ReplyDelivery } from './reply-delivery.js';
import { runPrompt } from './run-prompt.js';
import { RunAbort } from './run-abort.js';
import { runSummary } from './summary.js';
import { sessionChains } from '../store/session-chains.js';

export interface RunQueueDeps {
  config: HeraldConfig;
  store: Store;
  /** what an agent turn needs: models, sessions, and the knowledge base a run's model sees passages of */
  turns: AgentTurnDeps;
  agents: AgentDirectory;
  mainSession: MainSession;
  /** asks for a heartbeat turn (on whichever process holds the heartbeat) */
  heartbeat: Pick<Heartbeat, 'request'>;
  delivery: ReplyDelivery;
  logger: Logger;
  /** told of each run that reached a final status (metrics) */
  onRunFinished?: (status: RunCompletion['status']) => void;
}

class RunTimeout extends Error {}

/** how often a process looks for runs it was not told about (another replica's, an expired lease) */
const POLL_MS = 1000;

/**
 * While runs answer at once (the embedded model: no I/O), a process holds this many times
 * `maxConcurrent` claimed runs instead of `maxConcurrent`, the extra ones waiting for a turn. A run
 * is claimed by a commit and its completion is written by the next one; with only `maxConcurrent`
 * claimed, a draining backlog committed `maxConcurrent` completions at a time, and a commit costs
 * about as much as the rows it writes (half a drained run's store time at 4). Turns still run
 * `maxConcurrent` at once. A run on a model that takes its time ends this: nothing is claimed
 * ahead then, so another replica takes what this one could not start (and a queued run stays cancellable).
 */
const CLAIM_AHEAD = 4;
/**
 * While turns are quick too, a run claimed comes with up to this many runs of its session behind
 * it (a chain): they take its slot one after another, each starting once the run ahead has its
 * answer and its completion is queued, not yet committed (SQLite: see completionsInOrder), so a
 * busy session's runs share commits (as separate sessions' do) instead of one claim and one commit
 * each. The store completes a run only after the one ahead of it: the order holds even when a
 * completion fails.
 */
const FOLLOW = 15;
/** a turn this quick (ms, to its answer) did no real I/O: its process may claim ahead */
const QUICK_TURN_MS = 20;

/**
 * Agent runs: recorded durably (queued) before the 202, then claimed from the store with a lease
 * by whichever process has a free slot: this one at once, another replica when this one is busy,
 * any of them when the claimer died (its lease runs out). Each run executes in its own session,
 * at most `maxConcurrent` turns at once per process (a few more claimed while turns are quick,
 * see CLAIM_AHEAD), aborted at its time limit. The store hands out only the
 * oldest unfinished run of a session, so a conversation's turns go in order across replicas.
 */
export class RunQueue {
  /** this process's identity on claims */
  private readonly owner = randomUUID();
  private readonly active = new Map<string, { promise: Promise<void>; abort: RunAbort }>();
  private accepting = false;
  private claiming?: Promise<void>;
  /** runs whose completion is being written */
  private readonly finishing = new Set<string>();
  /** slots taken by runs being inserted already claimed (see submit) */
  private reserved = 0;
  /** slots held by active runs: not by a run waiting behind another of its chain, nor by one that handed its slot on */
  private slotsHeld = 0;
  /** runs in their turn (waiting for the model or taking its answer): at most maxConcurrent */
  private turns = 0;
  /** claimed runs waiting for a turn (claimed ahead, see CLAIM_AHEAD), oldest first */
  private readonly waitingForTurn: (() => void)[] = [];
  /** the last turn was quick (see QUICK_TURN_MS): claim ahead */
  private quick = false;
  private again = false;
  /** the last claim filled every free slot: there may be more to take */
  private moreWaiting = true;
  private poll?: NodeJS.Timeout;
  private renewal?: NodeJS.Timeout;

  constructor(private readonly deps: RunQueueDeps) {}

  /**
   * `options.id`: an id chosen before dispatch (an Idempotency-Key record points at it);
   * `options.rerunOf`: the run an operator re-runs (the new run is linked to it).
   */
  async submit(action: AgentAction, options: { id?: string; rerunOf?: string } = {}): Promise<string> {
    const id = options.id ?? uuidV7();
    // runs accepted before agentId existed carry none: the default agent, as then
    const agent = (action.agentId && this.deps.agents.get(action.agentId)) || this.deps.agents.default();
    const run: RunRecord = {
      id,
      status: 'queued',
      agentId: agent.id,
      name: action.name,
      sessionKey: action.sessionKey ?? `hook:${uuidV7()}`,
      message: action.message,
      action: { ...action },
      reply: null,
      error: null,
      createdAt: Date.now(),
      startedAt: null,
      finishedAt: null,
      rerunOf: options.rerunOf ?? null,
    };
    // a run whose session key was made up here is alone in its session: with a slot free, it is
    // stored already claimed by this process and starts at once (one write instead of two)
    const { leaseMs } = this.deps.config.agents.defaults;
    const now = Date.now();
    const claimed = action.sessionKey === undefined && this.accepting && this.slotsTaken() < this.capacity()
      ? { owner: this.owner, now, until: now + leaseMs }
      : undefined;
    if (claimed) this.reserved++;
    try {
      await this.deps.store.runs.insert(run, claimed);
    } finally {
      if (claimed) this.reserved--;
    }
    if (!claimed) this.kick();
    else if (this.accepting) this.begin({ ...run, status: 'running', startedAt: now }, {});
    // stopped meanwhile: handed back, for the next process
    else await this.deps.store.runs.release([id], this.owner);
    return id;
  }

  /** starts claiming: what this or a dead process left unfinished is taken as leases allow */
  start(): void {
    this.accepting = true;
    const leaseMs = this.deps.config.agents.defaults.leaseMs;
    this.poll = setInterval(() => this.kick(), POLL_MS);
    this.poll.unref();
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(leaseMs / 3)));
    this.renewal.unref();
    this.kick();
  }

  /** claims runs into free slots; calls while a claim is in flight coalesce into one more */
  private kick(): void {
    if (!this.accepting) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claim()
      .catch((err) => this.deps.logger.warn({ err }, 'claiming runs failed; retrying at the next poll'))
      .finally(() => {
        this.claiming = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async claim(): Promise<void> {
    const { config, store } = this.deps;
    const free = this.capacity() - this.slotsTaken();
    if (free <= 0) return;
    const now = Date.now();
    const chains = sessionChains(await store.runs.claim({ owner: this.owner, now, until: now + config.agents.defaults.leaseMs }, free, this.follow()));
    this.moreWaiting = chains.length === free;
    for (const chain of chains) this.beginChain(chain);
    if (this.moreWaiting) this.again = true;
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
   * Runs start from a setImmediate, never straight from a promise callback: a run on the
   * embedded model finishes without real I/O, so starting the next one in `.finally` chained
   * the whole backlog into one microtask burst that starved the HTTP server (the benchmark saw
   * seconds-long p99 on /hooks/agent). Yielding lets pending requests in between runs.
   */
  private begin(run: RunRecord, link: { history?: SessionMessage[]; ahead?: Promise<Carried>; followed?: boolean }): Promise<Carried> {
    const abort = new RunAbort();
    // a run behind another of its chain takes the slot when that one hands it on
    let holds = false;
    const hold = (yes: boolean) => {
      if (yes === holds) return;
      holds = yes;
      this.slotsHeld += yes ? 1 : -1;
    };
    hold(!link.ahead);
    let handOn!: (carried: Carried) => void;
    const handedOn = new Promise<Carried>((resolve) => (handOn = resolve));
    const chain: ChainLink = {
      ahead: link.ahead?.then((carried) => {
        hold(carried !== undefined);
        return carried;
      }),
      handOn: link.followed
        ? (history) => {
            hold(false);
            handOn(history);
          }
        : undefined,
    };
    const promise = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.execute(run, abort, link.history, chain))
      .catch((error) => {
        this.deps.logger.error({ err: error, runId: run.id }, 'run bookkeeping failed');
        return undefined;
      })
      .then((handover) => {
        this.active.delete(run.id);
        hold(false);
        // ended without handing its history on (aborted, lost, failed to complete): the run behind is handed back
        handOn(undefined);
        // the runs claimed into this run's slot by its completion: they take the slot, no claim needed
        if (!handover) this.kick();
        else if (this.accepting) this.beginChain(handover.next, handover.history);
        // stopped meanwhile: handed back, for the next process
        else return this.deps.store.runs.release(handover.next.map((r) => r.id), this.owner);
      })
      .catch((err) => this.deps.logger.warn({ err }, 'handing a claimed run back failed; it is retaken when its lease runs out'));
    this.active.set(run.id, { promise, abort });
    return handedOn;
  }

  /** a run, then the runs of its session claimed behind it, each starting when the one ahead hands its history on */
  private beginChain([first, ...behind]: RunRecord[], history?: SessionMessage[]): void {
    let ahead = this.begin(first!, { history, followed: behind.length > 0 });
    behind.forEach((run, i) => (ahead = this.begin(run, { ahead, followed: i < behind.length - 1 })));
  }

  /** slots taken: by runs holding one and by runs being inserted claimed */
  private slotsTaken(): number {
    return this.slotsHeld + this.reserved;
  }

  /** how many runs of its session a claimed run brings along (see FOLLOW) */
  private follow(): number {
    return this.quick ? FOLLOW : 0;
  }

  /** how many claimed runs this process holds at most (see CLAIM_AHEAD) */
  private capacity(): number {
    const { maxConcurrent } = this.deps.config.agents.defaults;
    return this.quick ? maxConcurrent * CLAIM_AHEAD : maxConcurrent;
  }

  /** waits for one of the maxConcurrent turns; false when the run was aborted (shutdown, lost lease) meanwhile */
  private takeTurn(abort: RunAbort): boolean | Promise<boolean> {
    if (abort.aborted) return false;
    if (this.turns < this.deps.config.agents.defaults.maxConcurrent) {
      this.turns++;
      return true;
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        const at = this.waitingForTurn.indexOf(wake);
        if (at >= 0) this.waitingForTurn.splice(at, 1);
        resolve(false);
      };
      // the turn ending hands its place over: `turns` stays as it is
      const wake = () => {
        stopListening();
        resolve(true);
      };
      this.waitingForTurn.push(wake);
      const stopListening = abort.onAbort(onAbort);
    });
  }

  /** a turn ended (answered or failed) `ms` after it began: its place goes to the oldest run waiting */
  private endTurn(ms: number): void {
    this.quick = ms < QUICK_TURN_MS;
    const next = this.waitingForTurn.shift();
    if (next) next();
    else this.turns--;
  }

  /** keeps this process's claims alive; a run whose lease was lost (a long pause) is abandoned to its new owner */
  private async renew(): Promise<void> {
    // a run being completed is left out: its completion ends the lease anyway
    const ids = [...this.active.keys()].filter((id) => !this.finishing.has(id));
    if (!ids.length) return;
    try {
      const held = new Set(await this.deps.store.runs.renew(ids, this.owner, Date.now() + this.deps.config.agents.defaults.leaseMs));
      for (const id of ids) {
        if (held.has(id) || !this.active.has(id)) continue;
        this.deps.logger.warn({ runId: id }, 'run lease lost to another process; abandoning it here');
        this.active.get(id)!.abort.abort(new LeaseLost());
      }
    } catch (err) {
      this.deps.logger.warn({ err }, 'renewing run leases failed');
    }
  }

  /**
   * Executes a run; returns the run its completion claimed into the slot it leaves, if any, with
   * that run's history when it is of the same session (this run's history and transcript: the
   * session's next run needs no read of what this one just wrote). A run of a chain waits for the
   * run ahead to hand its history on, and hands its own on to the run behind once its completion is queued.
   */
  private async execute(run: RunRecord, abort: RunAbort, carried: SessionMessage[] | undefined, chain: ChainLink): Promise<Handover | undefined> {
    const { store, config, logger } = this.deps;
    const { historyLimit } = config.agents.defaults;
    const { id } = run;
    const action: AgentAction = run.action;
    const agent = this.deps.agents.get(run.agentId) ?? this.deps.agents.default();
    // a session key made up at submit (a random uuid) has no history to read: a run that did not
    // name one is the only one in its session (a retaken run's transcript was never written)
    const freshSession = action.sessionKey === undefined;

    if (chain.ahead) {
      carried = await chain.ahead;
      // the run ahead ended here without an outcome (a shutdown, a lost lease): this one is handed back too
      if (carried === undefined) return this.handBack(id);
    }
    // a run claimed ahead waits for a turn; aborted meanwhile (a shutdown, a lost lease), it is handed back as below
    const turn = this.takeTurn(abort);
    if (turn !== true && !(await turn)) {
      if (!(abort.reason instanceof LeaseLost)) await store.runs.release([id], this.owner);
      return undefined;
    }
    // the turn's place is given up once its outcome is known, before the completion is written:
    // the runs claimed ahead take their turns while it waits for its commit, and share that commit
    const turnStarted = Date.now();
    let inTurn = true;
    const endTurn = () => {
      if (!inTurn) return;
      inTurn = false;
      this.endTurn(Date.now() - turnStarted);
    };

    // one abort per run: its time limit, a shutdown and a lost lease all abort it, each with its own reason.
    // Models answering in-process get no signal (see RunAbort): an abort before their answer is
    // written is seen when it is (`record`), as the model would have seen it when asked
    const inProcess = this.deps.turns.models.answersInProcess(turnModelRefs(config, agent, action.model));
    const timeoutMs = (action.timeoutSeconds ?? config.agents.defaults.timeoutSeconds) * 1000;
    const deadlineAt = Date.now() + timeoutMs;
    const timer = setTimeout(() => abort.abort(new RunTimeout('run timed out')), timeoutMs);
    let history = carried;
    try {
      const prompt = runPrompt(action, run.createdAt);
      let now = 0;
      let completed: CompletedRun = { finished: false };
      let written: SessionMessage[] = [];
      history ??= freshSession ? [] : await this.deps.turns.sessions.messages(run.sessionKey, historyLimit);
      const seen = history;
      const { text: reply } = await completeAgentTurn(this.deps.turns, {
        agent,
        purpose: 'run',
        sessionKey: run.sessionKey,
        history,
        prompt,
        question: action.message,
        model: action.model,
        retrieve: true,
        options: { thinking: action.thinking },
        signal: inProcess ? undefined : abort.signal,
        // the primary, then each fallback on an error or when its share of the time limit runs out
        fallbacks: true,
        deadlineAt,
        // the message as received, never the safety-wrapped form
        // (the wrapped prompt kept beside it, in meta: the console shows what the model saw)
        incoming: [{ role: 'user', content: action.message, createdAt: run.createdAt, runId: id, meta: { prompt } }],
        answer: () => ({ runId: id }),
        // the transcript is written by the run's completion, with its status and summary, in one transaction
        record: async (transcript, outcome) => {
          if (inProcess && abort.aborted) throw abort.reason;
          endTurn();
          now = transcript.at(-1)?.createdAt ?? Date.now();
          const asked = transcript.find((m) => m.role === 'user' && m.runId === id);
          // Object.assign, not spreads, for what each run adds to an object: slow on Node 20 (turn-prompt.ts)
          if (asked) asked.meta = Object.assign({}, asked.meta, { model: outcome.modelRef });
          written = transcript;
          // a store error here is not the run's failure: the run stays running and, once its lease
          // runs out, is retaken (a StoreFault escapes the catch below to the bookkeeping log)
          const completing = this.complete(id, { status: 'succeeded', reply: outcome.text, model: outcome.modelRef, at: now, transcript }, action, { reply: outcome.text }, !chain.handOn);
          completed = await this.handingOn(
            completing.catch((error: unknown) => {
              throw new StoreFault(error);
            }),
            chain,
            () => [...seen, ...written].slice(-historyLimit),
          );
          // refs only: a provider's error text may echo what it was sent
          if (outcome.failures.length) logger.warn({ runId: id, answeredBy: outcome.modelRef, failed: outcome.failures.map((f) => f.ref) }, 'run answered by a fallback model');
        },
      });
      // of two processes finishing one run (the first lost its lease), only one completes it
      // not completed: finished by another process (this one lost its lease), or its run ahead was not
      if (!completed.finished) return this.handBack(id);
      // fields, not a child logger: a child per run cost more than the run's own log line
      // the session key is often templated from the payload (hook:github:owner/repo): only with gateway.log.verboseErrors
      logger.info({ runId: id, ...(verboseErrors(logger) && { sessionKey: run.sessionKey }), status: 'succeeded', ms: now - (run.startedAt ?? run.createdAt) }, 'run finished');
      const next = handover(completed, run, () => [...seen, ...written].slice(-historyLimit));
      await this.afterRun({ ...run, status: 'succeeded', reply }, action, reply);
      return next;
    } catch (error) {
      endTurn();
      if (error instanceof StoreFault) throw error.cause;
      const timedOut = abort.reason instanceof RunTimeout;
      if (abort.aborted && !timedOut) {
        // handed back, queued again: the next claimer (another replica, or this one restarted) runs it
        if (!(abort.reason instanceof LeaseLost)) await store.runs.release([id], this.owner);
        return undefined;
      }
      const message = timedOut ? `timed out after ${timeoutMs / 1000}s` : describeError(error);
      const status = timedOut ? 'timed_out' : 'failed';
      const failing = this.complete(id, { status, error: message, at: Date.now(), transcript: [] }, action, timedOut ? { timedOut } : { error: message }, !chain.handOn);
      // a failed run wrote nothing to its session: the run behind gets the history this one had
      const failed = await this.handingOn(failing, chain, () => history);
      if (!failed.finished) return this.handBack(id);
      logger.warn({ runId: id, status, ...(timedOut ? {} : { ...errorDetail(logger, error), ...providerFailureFields(error) }), ...(verboseErrors(logger) && { sessionKey: run.sessionKey }) }, 'run failed');
      // a failed run wrote nothing to its session: its history is still the session's, when it was read
      const next = handover(failed, run, () => history);
      await this.afterRun({ ...run, status, error: message }, action);
      return next;
    } finally {
      endTurn();
      clearTimeout(timer);
    }
  }

  /**
   * The run's status, transcript and its always-posted summary, in one transaction; while this
   * process takes work, the same commit claims the next run into the slot this one leaves.
   */
  private async complete(id: string, completion: Omit<RunCompletion, 'summary'>, action: AgentAction, outcome: Parameters<typeof runSummary>[1], claimInto: boolean): Promise<CompletedRun> {
    const untrusted = !action.allowUnsafeExternalContent;
    const summary = { session: MAIN_SESSION, text: runSummary(action.name, Object.assign({}, outcome, { untrusted })), maxPending: MAX_PENDING_EVENTS };
    const { store, config } = this.deps;
    this.finishing.add(id);
    let completed: CompletedRun;
    try {
      // the run itself still holds a place: claiming into it keeps the count, unless the claim-ahead ended
      // (a run with one behind it in its chain hands its slot to that one instead)
      if (claimInto && this.accepting && this.slotsTaken() <= this.capacity()) {
        const now = Date.now();
        completed = await store.runs.completeAndClaim(id, Object.assign({}, completion, { summary }), { owner: this.owner, now, until: now + config.agents.defaults.leaseMs }, this.follow());
      } else {
        completed = { finished: await store.runs.complete(id, Object.assign({}, completion, { summary })) };
      }
    } finally {
      this.finishing.delete(id);
    }
    if (completed.finished) this.deps.onRunFinished?.(completion.status);
    return completed;
  }

  /**
   * Waits for a run's completion, asked already, and hands the run's history on to the run behind
   * it in its chain: at once where completions commit in the order asked (its completion then
   * joins this one's commit), else once this one committed (see completionsInOrder). No history
   * known (the run failed before reading it): nothing is handed on, the run behind is handed back.
   */
  private async handingOn(completing: Promise<CompletedRun>, chain: ChainLink, history: () => SessionMessage[] | undefined): Promise<CompletedRun> {
    const handOn = () => {
      const carried = history();
      if (carried) chain.handOn?.(carried);
    };
    const inOrder = this.deps.store.runs.completionsInOrder;
    if (inOrder) handOn();
    const completed = await completing;
    if (!inOrder && completed.finished) handOn();
    return completed;
  }

  /**
   * A run this process will not finish handed back: still held here, it is queued again in its
   * session's order; finished or held elsewhere (see RunsRepo.complete, release), it is left alone.
   */
  private async handBack(id: string): Promise<undefined> {
    await this.deps.store.runs.release([id], this.owner);
    return undefined;
  }

  /**
   * then delivery (the outbox re-queues it at start should the process die first); then the
   * heartbeat if asked. The run is finished by then: a failure here is logged, not the run's
   */
  private async afterRun(run: RunRecord, action: AgentAction, reply?: string) {
    try {
      if (reply !== undefined && action.deliver && !isHeartbeatAck(reply, this.deps.config.heartbeat.ackMaxChars)) {
        await this.deps.delivery.deliverRunReply(run, action, reply);
      }
      if (action.wakeMode === 'now') this.deps.heartbeat.request();
    } catch (err) {
      this.deps.logger.error({ err, runId: run.id }, 'queueing the reply of a finished run failed');
    }
  }

  /** resolves when this process runs nothing and the store had nothing more for it (tests) */
  async idle(): Promise<void> {
    for (;;) {
      await this.claiming;
      if (this.active.size === 0) {
        // one more look: a run queued since the last claim
        this.kick();
        await this.claiming;
        if (this.active.size === 0) return;
      }
      await Promise.all([...this.active.values()].map((a) => a.promise));
    }
  }

  /** stops claiming; runs still going after `graceMs` are aborted and handed back, queued */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    clearInterval(this.poll);
    clearInterval(this.renewal);
    await this.claiming;
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([this.settled(), grace]);
    for (const { abort } of this.active.values()) abort.abort(new Error('shutting down'));
    await this.settled();
  }

  /** until no run is active: a run ending may hand its slot to one its completion claimed */
  private async settled(): Promise<void> {
    while (this.active.size) await Promise.all([...this.active.values()].map((a) => a.promise));
  }
}

/** the store failed to record a finished run: not the run's own failure */
class StoreFault extends Error {
  constructor(cause: unknown) {
    super('completing the run failed', { cause });
  }
}

/** the runs claimed by a completion into the slot it leaves (a chain), with their session's history when known */
interface Handover {
  next: RunRecord[];
  history?: SessionMessage[];
}

/** a run's history once its outcome is known, for the run behind it; undefined: it ended without one */
type Carried = SessionMessage[] | undefined;

/** where a run stands in its chain (see FOLLOW) */
interface ChainLink {
  /** the run ahead's history handed on, when it has one ahead */
  ahead?: Promise<Carried>;
  /** hands this run's history to the run behind it, when it has one */
  handOn?: (history: SessionMessage[]) => void;
}

function handover(completed: CompletedRun, run: RunRecord, history: () => SessionMessage[] | undefined): Handover | undefined {
  if (!completed.next) return undefined;
  // another session's run reads its own history (or has none: a fresh session)
  return { next: completed.next, history: completed.next[0]!.sessionKey === run.sessionKey ? history() : undefined };
}

/** the abort reason of a run another process took over */
class LeaseLost extends Error {}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 499)}…` : message;
}
