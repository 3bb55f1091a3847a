import type { Budget, HeraldConfig } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { UsageRepo } from '../store/port.js';
import type { UsageRecorder } from './usage-recorder.js';

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
 * is let through while its holder is under the limit; the call that crosses it is the last.
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

  /** the same, without counting it as a refusal (the alert rule looks) */
  async firstSpent(holders: (BudgetHolder | undefined)[], now = Date.now()): Promise<BudgetExceeded | undefined> {
    const present = holders.filter((h): h is BudgetHolder => h !== undefined);
    if (!present.length) return undefined;
    await this.recorder.settled();
    for (const holder of present) {
      const whose = holder.kind === 'key' ? { keyName: holder.name } : { agentId: holder.name };
      const { tokensPerDay, costPerMonth } = holder.budget;
      if (tokensPerDay !== undefined) {
        const spent = await this.usage.spent(whose, startOfDay(now));
        if (spent.tokens >= tokensPerDay) return { holder, limit: 'tokensPerDay', allowed: tokensPerDay, spent: spent.tokens, resetsAt: startOfDay(now) + 86_400_000 };
      }
      if (costPerMonth !== undefined) {
        const spent = await this.usage.spent(whose, startOfMonth(now));
        if (spent.cost >= costPerMonth) return { holder, limit: 'costPerMonth', allowed: costPerMonth, spent: spent.cost, resetsAt: startOfNextMonth(now) };
      }
    }
    return undefined;
  }

  /** throws the platform API's 429 when a budget of `holders` is spent */
  async enforce(holders: (BudgetHolder | undefined)[]): Promise<void> {
    const exceeded = await this.exceeded(holders);
    if (!exceeded) return;
    throw new HeraldError('HERALD_BUDGET_EXCEEDED', budgetMessage(exceeded), {
      // the official clients retry a 429 unless told not to: waiting a few seconds will not help
      headers: { 'x-should-retry': 'false' },
      details: { budget: exceeded.holder.kind, name: exceeded.holder.name, limit: exceeded.limit, resetsAt: new Date(exceeded.resetsAt).toISOString() },
    });
  }
}
