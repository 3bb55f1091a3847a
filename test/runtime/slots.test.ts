import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/runtime/runs/slots.js';
import { Turns } from '../../src/runtime/runs/turns.js';

/** a process's slots at maxConcurrent 2, claiming 4 times ahead while turns are quick */
function slots(lastWasQuick: boolean): Slots {
  const turns = new Turns(() => 2);
  turns.lastWasQuick = lastWasQuick;
  return new Slots(() => 2, turns, 4);
}

describe('Slots', () => {
  it('holds no more runs than turn at once while turns take their time', () => {
    expect(slots(false).capacity()).toBe(2);
  });

  it('claims ahead while turns are quick and runs arrive no faster than they turn', () => {
    const quick = slots(true);
    expect(quick.capacity()).toBe(8);
    quick.arriving = 2;
    expect(quick.capacity()).toBe(8);
  });

  it('claims nothing ahead while more runs arrive than turn at once (requests first), and claims ahead again once they are in', () => {
    const quick = slots(true);
    quick.arriving = 3;
    expect(quick.capacity()).toBe(2);
    quick.arriving = 0;
    expect(quick.capacity()).toBe(8);
  });
});
