import type { SessionMessage } from '../../store/port.js';
import type { Slots } from './slots.js';

/** a run's session history once its outcome is known, for the run behind it; undefined: it ended without one */
export type PassedHistory = SessionMessage[] | undefined;

/**
 * Where a run stands in its session's chain: runs of one session claimed together and executed
 * one after another, each starting when the run ahead passes its history on (no read of what that
 * one just wrote). A run whose run ahead ended without an outcome is given back to the queue too.
 */
export interface ChainPlace {
  /** the history the run ahead passes on, when there is one ahead */
  ahead?: Promise<PassedHistory>;
  /** passes this run's history to the run behind it, when there is one */
  passBehind?: (history: SessionMessage[]) => void;
}

/**
 * A run's place in its chain, with its slot: the first run of a chain holds one from the start;
 * a run behind takes the slot when the run ahead passes its history on, and a run passing its
 * history on gives its slot up with it. `leave` when the run ended: its slot is given up and,
 * if it passed nothing on, the run behind is told so. `passed`: what the run behind waits for
 * (none when there is no run behind).
 */
export function takePlace(slots: Slots, ahead: Promise<PassedHistory> | undefined, hasBehind: boolean): TakenPlace {
  return new TakenPlace(slots, ahead, hasBehind);
}

/** takePlace's place: one object per run, its steps on the prototype, where each run made a closure for each */
export class TakenPlace implements ChainPlace {
  readonly ahead: Promise<PassedHistory> | undefined;
  readonly passBehind: ((history: SessionMessage[]) => void) | undefined;
  readonly passed: Promise<PassedHistory> | undefined;
  private holds = false;
  private pass: ((history: PassedHistory) => void) | undefined = undefined;

  constructor(
    private readonly slots: Slots,
    ahead: Promise<PassedHistory> | undefined,
    hasBehind: boolean,
  ) {
    this.hold(!ahead);
    this.passed = hasBehind ? new Promise<PassedHistory>((resolve) => (this.pass = resolve)) : undefined;
    this.ahead = ahead?.then((history) => {
      this.hold(history !== undefined);
      return history;
    });
    // called as the place's own (place.passBehind(history)): its `this` is the place
    this.passBehind = hasBehind ? this.passOn : undefined;
  }

  /** the run ended: its slot given up, and the run behind told it passed nothing on, if it did not */
  leave(): void {
    this.hold(false);
    this.pass?.(undefined);
  }

  private passOn(this: TakenPlace, history: SessionMessage[]): void {
    this.hold(false);
    this.pass!(history);
  }

  private hold(yes: boolean): void {
    if (yes === this.holds) return;
    this.holds = yes;
    this.slots.held += yes ? 1 : -1;
  }
}
