import type { ApiPrincipal } from '../../platform/api-keys.js';
import type { BudgetHolder, Budgets } from '../../platform/budgets.js';

/**
 * Refuses a /v1 call whose key's budget, or whose agent's, is spent (429). Without budgets it
 * returns nothing to await: the calls of a deployment without budgets pay no promise for them.
 */
export function enforceBudgets(principal: ApiPrincipal, budgets: Budgets | undefined, agentId?: string): Promise<void> | undefined {
  if (!budgets) return undefined;
  const holders: BudgetHolder[] = [];
  if (principal.budget) holders.push({ kind: 'key', name: principal.name, budget: principal.budget });
  const agent = agentId === undefined ? undefined : budgets.agent(agentId);
  if (agent) holders.push(agent);
  return holders.length ? budgets.enforce(holders) : undefined;
}
