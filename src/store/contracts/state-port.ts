/** small durable key/value state (plugin state, the main session's last route, ...) */
export interface StateRepo {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
  delete(key: string): Promise<void>;
  /** the keys starting with `prefix` (a prefix, not a pattern) and their values, by key */
  list<T = unknown>(prefix: string): Promise<{ key: string; value: T }[]>;
  /** deletes the keys starting with `prefix` last written before `before` (epoch ms); returns how many */
  deleteOlderThan(prefix: string, before: number): Promise<number>;
}
