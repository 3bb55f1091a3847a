import type { ApiPrincipal } from '../../platform/api-keys.js';
import type { BudgetHolder, Budgets } from '../../platform/budgets.js';

/** the budgets a /v1 call counts against: its key's and, when it names one, its agent's */
export function principalBudgets(principal: ApiPrincipal, budgets: Budgets | undefined, agentId?: string): (BudgetHolder | undefined)[] {
  return [principal.budget && { kind: 'key', name: principal.name, budget: principal.budget }, agentId === undefined ? undefined : budgets?.agent(agentId)];
}
