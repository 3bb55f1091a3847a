import type { RunAbort } from '../run-abort.js';

/** a turn this quick (ms, to its answer) did no real I/O: its model answers at once */
const QUICK_TURN_MS = 20;

/**
 * The turns of this process's runs: at most `maxConcurrent` runs wait for their model or take its
 * answer at once; a claimed run waits for a turn, oldest first. Whether the last turn was quick
 * decides how much this process claims at a time (see Slots).
 */
export class Turns {
  private inTurn = 0;
  private readonly waiting: (() => void)[] = [];
  /** the last turn ended within QUICK_TURN_MS of its start */
  lastWasQuick = false;

  constructor(private readonly maxConcurrent: () => number) {}

  /** waits for a turn; false when the run was aborted (a shutdown, a lost lease) meanwhile */
  take(abort: RunAbort): boolean | Promise<boolean> {
    if (abort.aborted) return false;
    if (this.inTurn < this.maxConcurrent()) {
      this.inTurn++;
      return true;
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      // the turn ending gives its place to this one: `inTurn` stays as it is
      const wake = () => {
        stopListening();
        resolve(true);
      };
      this.waiting.push(wake);
      const stopListening = abort.onAbort(onAbort);
    });
  }

  /** a turn ended (answered or failed) `ms` after it began: its place goes to the oldest run waiting */
  end(ms: number): void {
    this.lastWasQuick = ms < QUICK_TURN_MS;
    const next = this.waiting.shift();
    if (next) next();
    else this.inTurn--;
  }
}
