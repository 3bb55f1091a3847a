/** what caused tokens to be spent */
export type UsageSource = 'chat' | 'response' | 'run' | 'heartbeat' | 'embeddings' | 'schedule';

/**
 * The tokens one model call spent, and whom they count against: the API key (platform calls),
 * the agent, the mapping (hook runs). `estimated`: the model counted nothing (the embedded
 * model, a provider without `usage`), so herald counted whitespace words.
 */
export interface UsageEntry {
  at: number;
  source: UsageSource;
  /** the model ref that answered (`openai/gpt-4o-mini`, `embedded/extractive`) */
  model: string;
  keyName?: string;
  agentId?: string;
  mappingId?: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: boolean;
  /** from `models.prices` when the call was recorded; 0 for a model without a price */
  cost: number;
}

export type UsageGroup = 'key' | 'agent' | 'mapping' | 'model';

export interface UsageQuery {
  by: UsageGroup;
  /** epoch ms, inclusive */
  since?: number;
  /** epoch ms, exclusive */
  until?: number;
  /** one row per group and UTC day */
  perDay?: boolean;
}

export interface UsageRow {
  /** the key's, agent's, mapping's or model's name; null for calls without one (a chat has no mapping) */
  group: string | null;
  /** YYYY-MM-DD (UTC), with perDay */
  day?: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** the part of totalTokens herald estimated */
  estimatedTokens: number;
  cost: number;
}

/** the tokens and cost one key or agent has spent since a time: what a budget is checked against */
export interface UsageSpent {
  tokens: number;
  cost: number;
}

/** one limit of a budget a reservation is checked against: what `whose` spent since `since` must stay under it */
export interface UsageLimit {
  whose: { keyName: string } | { agentId: string };
  since: number;
  /** the most tokens (tokensPerDay) */
  tokens?: number;
  /** the most cost (costPerMonth) */
  cost?: number;
}

export interface UsageRepo {
  /** adds the entries in one write */
  record(entries: UsageEntry[]): Promise<void>;
  /**
   * Reserves a model call's estimated tokens before the call, atomically with the check of its
   * budgets, across every process on the database: refused (the first limit reached and what was
   * spent, reservations included) when what `whose` spent is already at a limit; otherwise the
   * entry is stored as an estimated call in flight (0 calls) and counts at once against every
   * budget, until `settle` writes what the call really spent in its place.
   */
  reserve(entry: UsageEntry, limits: UsageLimit[]): Promise<{ id: number } | { refused: UsageLimit; spent: UsageSpent }>;
  /** writes a reserved call's real tokens in place of its estimate; undefined: the call spent nothing, the reservation goes */
  settle(id: number, entry: UsageEntry | undefined): Promise<void>;
  /**
   * what `whose` spent from `since` on, summed by the store (every replica's calls count);
   * `settled`: without the reservations of calls still in flight
   */
  spent(whose: { keyName: string } | { agentId: string }, since: number, settled?: boolean): Promise<UsageSpent>;
  /** totals by group (and day), most tokens first within a day */
  report(query: UsageQuery): Promise<UsageRow[]>;
}
