/**
 * What `make` gives for a key, made once and kept. Past `max` everything is forgotten at once: a
 * bound, not an eviction order, since a config repeats few texts, and reloads of ever-changing
 * ones must not grow the memo forever. `max` counts keys, or with `weigh` what each key weighs
 * (a text's length, where the texts' sizes are not the memo's to choose); a key heavier than
 * `max` alone is made each time and not kept.
 */
export class BoundedMemo<K, V> {
  private readonly values = new Map<K, V>();
  private held = 0;

  constructor(
    private readonly max: number,
    private readonly weigh?: (key: K) => number,
  ) {}

  get(key: K, make: (key: K) => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make(key);
      const weight = this.weigh ? this.weigh(key) : 1;
      if (weight > this.max) return value;
      if (this.held + weight > this.max) {
        this.values.clear();
        this.held = 0;
      }
      this.values.set(key, value);
      this.held += weight;
    }
    return value;
  }
}
