/**
 * The run backlog, one lane per session. Runs of one session go one at a time and in order, so a
 * flat list had to be scanned past every waiting run of a busy session on each take: a burst on
 * one templated session key (`hook:github:{{repository.full_name}}`) made draining N runs O(N²)
 * (48k runs took 229 s against 12 s on separate sessions). Here a take costs O(log sessions):
 * lanes whose session is free sit in a heap ordered by the arrival of their oldest run, so runs
 * still start oldest first across sessions, and a busy session's lane leaves the heap until its
 * run finishes.
 */
interface Lane<T> {
  key: string;
  items: T[];
  head: number;
  /** arrival number of the lane's oldest item */
  seq: number;
  seqs: number[];
  /** true while one of its items is taken and not yet released */
  busy: boolean;
  inHeap: boolean;
}

export class SessionLanes<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  private readonly ready: Lane<T>[] = [];
  private nextSeq = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(key: string, item: T): void {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, items: [], head: 0, seq: 0, seqs: [], busy: false, inHeap: false };
      this.lanes.set(key, lane);
    }
    const seq = this.nextSeq++;
    if (lane.head === lane.items.length) lane.seq = seq;
    lane.items.push(item);
    lane.seqs.push(seq);
    this.size++;
    if (!lane.busy && !lane.inHeap) this.heapPush(lane);
  }

  /** the oldest item of a session with nothing taken; its session stays taken until `release` */
  take(): T | undefined {
    const lane = this.heapPop();
    if (!lane) return undefined;
    const item = lane.items[lane.head] as T;
    lane.items[lane.head] = undefined as T;
    lane.head++;
    this.size--;
    lane.busy = true;
    if (lane.head === lane.items.length) {
      lane.items = [];
      lane.seqs = [];
      lane.head = 0;
    } else {
      lane.seq = lane.seqs[lane.head]!;
      if (lane.head >= 1024 && lane.head * 2 >= lane.items.length) {
        lane.items = lane.items.slice(lane.head);
        lane.seqs = lane.seqs.slice(lane.head);
        lane.head = 0;
      }
    }
    return item;
  }

  /** the session's taken item finished: its next item may be taken */
  release(key: string): void {
    const lane = this.lanes.get(key);
    if (!lane) return;
    lane.busy = false;
    if (lane.head < lane.items.length) this.heapPush(lane);
    else this.lanes.delete(key);
  }

  clear(): void {
    this.lanes.clear();
    this.ready.length = 0;
    this.size = 0;
  }

  private heapPush(lane: Lane<T>): void {
    lane.inHeap = true;
    this.ready.push(lane);
    this.up(this.ready.length - 1);
  }

  private heapPop(): Lane<T> | undefined {
    const top = this.ready[0];
    if (!top) return undefined;
    const last = this.ready.pop()!;
    if (last !== top) {
      this.ready[0] = last;
      this.down(0);
    }
    top.inHeap = false;
    return top;
  }

  private up(i: number): void {
    const heap = this.ready;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.seq <= heap[i]!.seq) return;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.ready;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && heap[l]!.seq < heap[min]!.seq) min = l;
      if (r < heap.length && heap[r]!.seq < heap[min]!.seq) min = r;
      if (min === i) return;
      [heap[min], heap[i]] = [heap[i]!, heap[min]!];
      i = min;
    }
  }
}
