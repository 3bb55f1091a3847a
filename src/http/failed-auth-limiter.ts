/**
 * Counts failed authentications per client address in a sliding window. Past the limit
 * the address is refused (429) until its oldest failure leaves the window.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 20,
    private readonly windowMs = 60_000,
    /** bounds memory under a spray of addresses */
    private readonly maxAddresses = 10_000,
  ) {}

  /** seconds to wait, or 0 when the address may try */
  retryAfter(address: string, now = Date.now()): number {
    const recent = this.prune(address, now);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000));
  }

  fail(address: string, now = Date.now()): void {
    const recent = this.prune(address, now);
    recent.push(now);
    this.failures.delete(address);
    this.failures.set(address, recent);
    if (this.failures.size > this.maxAddresses) this.failures.delete(this.failures.keys().next().value!);
  }

  private prune(address: string, now: number): number[] {
    const list = this.failures.get(address) ?? [];
    const recent = list.filter((t) => now - t < this.windowMs);
    if (recent.length) this.failures.set(address, recent);
    else this.failures.delete(address);
    return recent;
  }
}
