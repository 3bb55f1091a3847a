import { describe, expect, it } from 'vitest';
import { SessionLanes } from '../../src/runtime/session-lanes.js';

describe('run backlog by session', () => {
  it('gives runs back oldest first across sessions, one at a time per session', () => {
    const lanes = new SessionLanes<string>();
    lanes.push('a', 'a1');
    lanes.push('b', 'b1');
    lanes.push('a', 'a2');
    lanes.push('c', 'c1');
    expect(lanes.take()).toBe('a1');
    // a is busy: its second run waits although it arrived before c1
    expect(lanes.take()).toBe('b1');
    expect(lanes.take()).toBe('c1');
    expect(lanes.take()).toBeUndefined();
    lanes.release('b');
    expect(lanes.take()).toBeUndefined();
    lanes.release('a');
    expect(lanes.take()).toBe('a2');
    expect(lanes.length).toBe(0);
  });

  it('keeps order inside one session across its compactions', () => {
    const lanes = new SessionLanes<number>();
    for (let i = 0; i < 5000; i++) lanes.push('one', i);
    const taken: number[] = [];
    for (let n = lanes.take(); n !== undefined; n = lanes.take()) {
      taken.push(n);
      if (n === 3000) lanes.push('one', 5000);
      lanes.release('one');
    }
    expect(taken).toEqual(Array.from({ length: 5001 }, (_, i) => i));
    expect(lanes.length).toBe(0);
  });

  it("drains every other session while one session's run is in flight", () => {
    const lanes = new SessionLanes<number>();
    const n = 200_000;
    for (let i = 0; i < n; i++) lanes.push(i % 2 === 0 ? 'busy' : `s${i}`, i);
    let count = 0;
    // a run of "busy" stays in flight while everything else drains past it
    expect(lanes.take()).toBe(0);
    for (let v = lanes.take(); v !== undefined; v = lanes.take()) {
      count++;
    }
    expect(count).toBe(n / 2);
    expect(lanes.length).toBe(n / 2 - 1);
  });

  it('is empty after clear', () => {
    const lanes = new SessionLanes<string>();
    lanes.push('x', 'a');
    lanes.clear();
    expect(lanes.length).toBe(0);
    expect(lanes.take()).toBeUndefined();
  });
});
