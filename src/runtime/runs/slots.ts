import type { Turns } from './turns.js';

/**
 * While turns are quick, a claimed run comes with up to this many runs queued behind it in its
 * session (a chain, see session-chain.ts): they take its slot one after another, so a busy
 * session's runs share commits as separate sessions' do, instead of one claim and one commit each.
 */
const RUNS_BEHIND = 15;

/**
 * How many runs this process may hold claimed: a slot per run claimed and not yet ended.
 *
 * While turns are quick (the embedded model: no I/O), a process holds up to `claimAhead` times
 * `maxConcurrent` claimed runs (its store says how many: RunsRepo.claimAhead), the extra ones
 * waiting for a turn. A run is claimed by one commit and completed by another, and a commit costs
 * about as much as the rows it writes: with more runs claimed, each commit carries more
 * completions. Turns still run `maxConcurrent` at once. A run on a model that takes its time ends
 * this: nothing more is claimed than can start, so another replica takes what this one could not
 * start (and a queued run stays cancellable).
 *
 * Requests come first: while more runs are arriving (submitted, their insert not yet committed)
 * than turns run at once, nothing is claimed ahead either. Runs claimed ahead execute on the CPU
 * and the commits that the requests need; under a flood they would slow the 202s down to finish
 * runs sooner, and a sender that times out sends again. The queued runs stay durable, run
 * `maxConcurrent` at once meanwhile, and are claimed ahead again as soon as the flood passes.
 */
export class Slots {
  /** held by active runs: not by a run waiting behind another of its chain, nor by one that passed its slot on */
  held = 0;
  /** taken by runs being inserted already claimed (see RunQueue.submit) */
  reserved = 0;
  /** runs submitted or admitted whose insert has not committed yet */
  arriving = 0;

  constructor(
    private readonly maxConcurrent: () => number,
    private readonly turns: Turns,
    private readonly claimAhead: number,
  ) {}

  taken(): number {
    return this.held + this.reserved;
  }

  /** how many claimed runs this process holds at most */
  capacity(): number {
    const max = this.maxConcurrent();
    return this.turns.lastWasQuick && this.arriving <= max ? max * this.claimAhead : max;
  }

  /** how many runs queued behind it in its session a claimed run brings along (see RUNS_BEHIND) */
  runsBehind(): number {
    return this.turns.lastWasQuick ? RUNS_BEHIND : 0;
  }
}
