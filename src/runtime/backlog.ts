/**
 * A first-in first-out list whose front is taken in O(1). Array#shift and splice(0, 1) copy the
 * whole array once it is large (the run backlog reaches tens of thousands under a webhook burst),
 * which made starting each run cost more than running it.
 */
export class Backlog<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** removes and returns the oldest item `accept` takes (usually the very first) */
  take(accept: (item: T) => boolean): T | undefined {
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i] as T;
      if (!accept(item)) continue;
      if (i > this.head) return this.items.splice(i, 1)[0];
      this.items[this.head++] = undefined;
      // drop the taken front now and then, in one copy, so memory follows the backlog down
      if (this.head >= 1024 && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return item;
    }
    return undefined;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
