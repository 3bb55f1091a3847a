import { Counter, type Registry } from 'prom-client';
import { SummedCounter, type CountCell } from './summed-counter.js';
import type { UsageEntry } from '../store/port.js';

/** the counter cells one kind of call adds to */
interface UsageCells {
  prompt: CountCell;
  completion: CountCell;
  cost: CountCell;
}

/**
 * Tokens in /metrics, counted by the replica that made the call (summed over replicas, each call
 * counts once). Labelled by agent, model and source, whose values the config bounds; API keys
 * (which `herald keys create` adds without bound) and mappings are in GET /admin/usage instead.
 */
export class UsageMetrics {
  private readonly tokens: SummedCounter<'agent' | 'model' | 'source' | 'kind' | 'estimated'>;
  private readonly cost: SummedCounter<'agent' | 'model'>;
  /** a call's cells, by agent, model, source and estimate (summed, see SummedCounter) */
  private readonly cells = new Map<string, Map<string, Map<string, [UsageCells?, UsageCells?]>>>();
  private readonly refusals: Counter<'budget'>;

  constructor(registry: Registry) {
    this.tokens = new SummedCounter({
      name: 'herald_tokens_total',
      help: 'Model tokens spent, by agent, model, source (chat, response, run, schedule, heartbeat, embeddings), kind (prompt, completion) and whether herald estimated them.',
      labelNames: ['agent', 'model', 'source', 'kind', 'estimated'],
      registers: [registry],
    });
    this.cost = new SummedCounter({
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
    const agent = entry.agentId ?? '';
    // looked up label by label: a key joined from them would be a new string, hashed anew, at every call
    const byModel = this.cells.get(agent) ?? this.cells.set(agent, new Map()).get(agent)!;
    const bySource = byModel.get(entry.model) ?? byModel.set(entry.model, new Map()).get(entry.model)!;
    const byEstimate = bySource.get(entry.source) ?? bySource.set(entry.source, []).get(entry.source)!;
    const at = entry.estimated ? 1 : 0;
    let cells = byEstimate[at];
    if (!cells) {
      const labels = { agent, model: entry.model, source: entry.source, estimated: String(entry.estimated) };
      cells = { prompt: this.tokens.cell({ ...labels, kind: 'prompt' }), completion: this.tokens.cell({ ...labels, kind: 'completion' }), cost: this.cost.cell({ agent, model: entry.model }) };
      byEstimate[at] = cells;
    }
    cells.prompt.n += entry.promptTokens;
    cells.completion.n += entry.completionTokens;
    cells.cost.n += entry.cost;
  }

  refused(budget: 'key' | 'agent'): void {
    this.refusals.inc({ budget });
  }
}
