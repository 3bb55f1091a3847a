/**
 * What `make` gives for a key, made once and kept. Past `max` keys everything is forgotten at
 * once: a bound, not an eviction order, since a config repeats few texts, and reloads of
 * ever-changing ones must not grow the memo forever.
 */
export class BoundedMemo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K, make: (key: K) => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make(key);
      if (this.values.size >= this.max) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}
