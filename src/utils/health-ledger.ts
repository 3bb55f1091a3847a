/** what one part's last calls did: the console's "unhealthy" is `consecutiveFailures > 0` */
export interface PartHealth {
  /** the part's name: a model provider (`models.providers.<id>`), a channel */
  name: string;
  lastOkAt: number | null;
  lastFailureAt: number | null;
  /** when the failures since the last success began; null while it is healthy */
  since: number | null;
  /** the last failure's cause in words an operator acts on (never a body or a secret) */
  cause: string | null;
  /** failures since the last success; 0 when the last call succeeded */
  consecutiveFailures: number;
}

/**
 * The outcome of the last calls to each of a set of parts (providers, channels), kept in this
 * process's memory: a success clears the failures. `onChange` hears only of what the console shows
 * (a part turning unhealthy or healthy, another failure), never of a success after a success,
 * so a busy healthy part costs no signal.
 */
export class HealthLedger {
  private readonly parts = new Map<string, PartHealth>();

  constructor(private readonly onChange?: () => void) {}

  ok(name: string, at = Date.now()): void {
    const part = this.part(name);
    const changed = part.consecutiveFailures > 0;
    part.lastOkAt = at;
    part.consecutiveFailures = 0;
    part.since = null;
    if (changed) this.onChange?.();
  }

  failed(name: string, cause: string, at = Date.now()): void {
    const part = this.part(name);
    part.lastFailureAt = at;
    part.cause = cause;
    part.since ??= at;
    part.consecutiveFailures++;
    this.onChange?.();
  }

  /** every part called so far, by name */
  entries(): PartHealth[] {
    return [...this.parts.values()].map((p) => ({ ...p })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** the parts whose last call failed */
  unhealthy(): PartHealth[] {
    return this.entries().filter((p) => p.consecutiveFailures > 0);
  }

  /** forgets the parts `keep` says no (a provider or channel a reload removed) */
  retain(keep: (name: string) => boolean): void {
    let changed = false;
    for (const [name, part] of this.parts) {
      if (keep(name)) continue;
      this.parts.delete(name);
      changed ||= part.consecutiveFailures > 0;
    }
    if (changed) this.onChange?.();
  }

  private part(name: string): PartHealth {
    let part = this.parts.get(name);
    if (!part) this.parts.set(name, (part = { name, lastOkAt: null, lastFailureAt: null, since: null, cause: null, consecutiveFailures: 0 }));
    return part;
  }
}
