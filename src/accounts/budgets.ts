import type { Budget, HeraldConfig } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { UsageLimit, UsageRepo } from '../store/port.js';
import type { UsageRecord, UsageRecorder } from './usage-recorder.js';

/** whose budget: an API key (`platform.apiKeys[].budget`) or an agent (`agents.list[].budget`) */
export interface BudgetHolder {
  kind: 'key' | 'agent';
  name: string;
  budget: Budget;
}

/** a budget spent: which one, what it allows, what was spent, when it resets */
export interface BudgetExceeded {
  holder: BudgetHolder;
  limit: 'tokensPerDay' | 'costPerMonth';
  allowed: number;
  spent: number;
  resetsAt: number;
}

const startOfDay = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};
const startOfMonth = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const startOfNextMonth = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** the config path of a holder's budget, as the message names it */
const budgetKey = (holder: BudgetHolder, limit: BudgetExceeded['limit']) =>
  holder.kind === 'key' ? `platform.apiKeys[name=${holder.name}].budget.${limit}` : `agents.list[id=${holder.name}].budget.${limit}`;

/** the sentence a refused call and a failed run both say */
export function budgetMessage(exceeded: BudgetExceeded): string {
  const { holder, limit, allowed, spent, resetsAt } = exceeded;
  const whose = holder.kind === 'key' ? `API key "${holder.name}"` : `agent "${holder.name}"`;
  const amount = limit === 'tokensPerDay' ? `${spent} of its ${allowed} tokens per day` : `${round(spent)} of its ${allowed} cost per month`;
  return `Budget exceeded: ${whose} has used ${amount} (${budgetKey(holder, limit)}); it resets at ${new Date(resetsAt).toISOString()}.`;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Budgets, decided by the store: what a key or agent spent is summed there from every
 * replica's calls, so replicas on one PostgreSQL database hold one budget between them. A call
 * is let through while its holder is under the limit, the estimates of the calls in flight
 * counted (reserve); the call that crosses it is the last.
 */
export class Budgets {
  constructor(
    private readonly config: Pick<HeraldConfig, 'agents' | 'platform'>,
    private readonly usage: UsageRepo,
    private readonly recorder: UsageRecorder,
    /** told of each call refused or run failed for a spent budget (the Prometheus counter) */
    private readonly onExceeded?: (exceeded: BudgetExceeded) => void,
  ) {}

  /** the agent's budget holder, if it has a budget (read from the running config: a reload applies) */
  agent(agentId: string): BudgetHolder | undefined {
    const budget = this.config.agents.list.find((a) => a.id === agentId)?.budget;
    return budget && { kind: 'agent', name: agentId, budget };
  }

  /** every budget of the running config: the keys' of platform.apiKeys, then the agents' */
  all(): BudgetHolder[] {
    return [
      ...this.config.platform.apiKeys.flatMap((k): BudgetHolder[] => (k.budget ? [{ kind: 'key', name: k.name, budget: k.budget }] : [])),
      ...this.config.agents.list.flatMap((a): BudgetHolder[] => (a.budget ? [{ kind: 'agent', name: a.id, budget: a.budget }] : [])),
    ];
  }

  /** the first budget of `holders` that is spent, if any */
  async exceeded(holders: (BudgetHolder | undefined)[], now = Date.now()): Promise<BudgetExceeded | undefined> {
    const found = await this.firstSpent(holders, now);
    if (found) this.onExceeded?.(found);
    return found;
  }

  /**
   * the same, without counting it as a refusal; `settled`: by what calls really spent, without
   * the estimates of calls in flight (the alert rule: a reservation is not yet spending)
   */
  async firstSpent(holders: (BudgetHolder | undefined)[], now = Date.now(), settled = false): Promise<BudgetExceeded | undefined> {
    const present = holders.filter((h): h is BudgetHolder => h !== undefined);
    if (!present.length) return undefined;
    await this.recorder.settled();
    for (const holder of present) {
      const whose = holder.kind === 'key' ? { keyName: holder.name } : { agentId: holder.name };
      const { tokensPerDay, costPerMonth } = holder.budget;
      if (tokensPerDay !== undefined) {
        const spent = await this.usage.spent(whose, startOfDay(now), settled);
        if (spent.tokens >= tokensPerDay) return { holder, limit: 'tokensPerDay', allowed: tokensPerDay, spent: spent.tokens, resetsAt: startOfDay(now) + 86_400_000 };
      }
      if (costPerMonth !== undefined) {
        const spent = await this.usage.spent(whose, startOfMonth(now), settled);
        if (spent.cost >= costPerMonth) return { holder, limit: 'costPerMonth', allowed: costPerMonth, spent: spent.cost, resetsAt: startOfNextMonth(now) };
      }
    }
    return undefined;
  }

  /** throws the platform API's 429 when a budget of `holders` is spent */
  async enforce(holders: (BudgetHolder | undefined)[]): Promise<void> {
    const exceeded = await this.exceeded(holders);
    if (exceeded) throw budgetError(exceeded);
  }

  /** the budgets a turn's model call counts against: its API key's (by name, from the running config) and its agent's */
  holdersOf(keyName: string | undefined, agentId: string): BudgetHolder[] {
    const budget = keyName === undefined ? undefined : this.config.platform.apiKeys.find((k) => k.name === keyName)?.budget;
    const agent = this.agent(agentId);
    // every model call asks (most have no budget): the list made without spreads of lists made for it
    const holders: BudgetHolder[] = budget ? [{ kind: 'key', name: keyName!, budget }] : [];
    if (agent) holders.push(agent);
    return holders;
  }

  /**
   * Reserves a model call's estimated tokens (and their cost) against the budgets of `holders`
   * before the call, in one step with their check, across every replica of the store: while a
   * call is in flight its estimate counts, so concurrent calls cannot all pass a budget only one
   * of them fits. Past a budget (reservations included): 429 at once. The id is handed to
   * UsageRecorder.settle with what the call really spent; undefined when no holder has a budget.
   */
  async reserve(holders: BudgetHolder[], estimate: UsageRecord, now = Date.now()): Promise<number | undefined> {
    const limits: (UsageLimit & { holder: BudgetHolder })[] = [];
    for (const holder of holders) {
      const whose = holder.kind === 'key' ? { keyName: holder.name } : { agentId: holder.name };
      const { tokensPerDay, costPerMonth } = holder.budget;
      if (tokensPerDay !== undefined) limits.push({ holder, whose, since: startOfDay(now), tokens: tokensPerDay });
      if (costPerMonth !== undefined) limits.push({ holder, whose, since: startOfMonth(now), cost: costPerMonth });
    }
    if (!limits.length) return undefined;
    // this process's own calls land first, so they count
    await this.recorder.settled();
    const reserved = await this.recorder.reserve(estimate, limits);
    if ('id' in reserved) return reserved.id;
    const { holder, tokens, cost } = reserved.refused as (typeof limits)[number];
    const exceeded: BudgetExceeded =
      tokens !== undefined
        ? { holder, limit: 'tokensPerDay', allowed: tokens, spent: reserved.spent.tokens, resetsAt: startOfDay(now) + 86_400_000 }
        : { holder, limit: 'costPerMonth', allowed: cost!, spent: reserved.spent.cost, resetsAt: startOfNextMonth(now) };
    this.onExceeded?.(exceeded);
    throw budgetError(exceeded);
  }
}

/** the platform API's 429 for a spent budget */
export function budgetError(exceeded: BudgetExceeded): HeraldError {
  return new HeraldError('HERALD_BUDGET_EXCEEDED', budgetMessage(exceeded), {
    // the official clients retry a 429 unless told not to: waiting a few seconds will not help
    headers: { 'x-should-retry': 'false' },
    details: { budget: exceeded.holder.kind, name: exceeded.holder.name, limit: exceeded.limit, resetsAt: new Date(exceeded.resetsAt).toISOString() },
  });
}
