import { Counter, type Registry } from 'prom-client';
import type { UsageEntry } from '../store/port.js';

/**
 * Tokens in /metrics, counted by the replica that made the call (summed over replicas, each call
 * counts once). Labelled by agent, model and source, whose values the config bounds; API keys
 * (which `herald keys create` adds without bound) and mappings are in GET /admin/usage instead.
 */
export class UsageMetrics {
  private readonly tokens: Counter<'agent' | 'model' | 'source' | 'kind' | 'estimated'>;
  private readonly cost: Counter<'agent' | 'model'>;
  private readonly refusals: Counter<'budget'>;

  constructor(registry: Registry) {
    this.tokens = new Counter({
      name: 'herald_tokens_total',
      help: 'Model tokens spent, by agent, model, source (chat, response, run, heartbeat, embeddings), kind (prompt, completion) and whether herald estimated them.',
      labelNames: ['agent', 'model', 'source', 'kind', 'estimated'],
      registers: [registry],
    });
    this.cost = new Counter({
      name: 'herald_cost_total',
      help: 'Cost of the tokens spent, at the prices of models.prices, by agent and model.',
      labelNames: ['agent', 'model'],
      registers: [registry],
    });
    this.refusals = new Counter({
      name: 'herald_budget_refusals_total',
      help: 'Calls refused and runs failed because a budget was spent, by whose budget (key, agent).',
      labelNames: ['budget'],
      registers: [registry],
    });
    for (const budget of ['key', 'agent']) this.refusals.inc({ budget }, 0);
  }

  recorded(entry: UsageEntry): void {
    const labels = { agent: entry.agentId ?? '', model: entry.model, source: entry.source, estimated: String(entry.estimated) };
    this.tokens.inc({ ...labels, kind: 'prompt' }, entry.promptTokens);
    if (entry.completionTokens) this.tokens.inc({ ...labels, kind: 'completion' }, entry.completionTokens);
    if (entry.cost) this.cost.inc({ agent: labels.agent, model: entry.model }, entry.cost);
  }

  refused(budget: 'key' | 'agent'): void {
    this.refusals.inc({ budget });
  }
}
