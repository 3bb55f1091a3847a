/** small durable key/value state (plugin state, the main session's last route, ...) */
export interface StateRepo {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
  delete(key: string): Promise<void>;
  /** deletes the keys starting with `prefix` last written before `before` (epoch ms); returns how many */
  deleteOlderThan(prefix: string, before: number): Promise<number>;
}
