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
 * if it passed nothing on, the run behind is told so.
 */
export function takePlace(slots: Slots, ahead: Promise<PassedHistory> | undefined, hasBehind: boolean) {
  let holds = false;
  const hold = (yes: boolean) => {
    if (yes === holds) return;
    holds = yes;
    slots.held += yes ? 1 : -1;
  };
  hold(!ahead);
  // what the run behind waits for: none when there is no run behind
  let pass = (_history: PassedHistory): void => {};
  const passed = hasBehind ? new Promise<PassedHistory>((resolve) => (pass = resolve)) : undefined;
  const place: ChainPlace = {
    ahead: ahead?.then((history) => {
      hold(history !== undefined);
      return history;
    }),
    passBehind: hasBehind
      ? (history) => {
          hold(false);
          pass(history);
        }
      : undefined,
  };
  const leave = () => {
    hold(false);
    pass(undefined);
  };
  return { place, passed, leave };
}
