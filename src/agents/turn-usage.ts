import type { BudgetHolder, Budgets } from '../accounts/budgets.js';
import type { UsageRecord, UsageRecorder } from '../accounts/usage-recorder.js';
import type { HeraldConfig } from '../config/schema.js';
import { EMBEDDED_PROVIDER } from '../models/model-refs.js';
import type { ModelRequest, ModelUsage } from '../models/provider.js';
import { estimatePromptTokens, estimateTokens } from '../models/token-estimate.js';
import { promptWordCount } from '../utils/word-count.js';
import type { ModelAnswer } from './turn-outcome.js';
import type { TurnFields, UsageAttribution } from './turn-inputs.js';

/** what a turn's accounting uses: where tokens are recorded, the budgets a call is reserved against */
export interface TurnAccounts {
  config: HeraldConfig;
  /** records each turn's tokens (turns with a `usage` attribution) */
  usage?: UsageRecorder;
  /** the budgets of keys and agents, checked before a turn */
  budgets?: Budgets;
}

/** the tokens of a model call cut short: its prompt and what it generated, counted by the model's tokenizer (token-estimate.ts) */
export async function recordCutShort(deps: TurnAccounts, input: TurnFields, answer: ModelAnswer, request: ModelRequest, reservation: number | undefined): Promise<void> {
  const generated = [answer.text, answer.refusal, ...answer.toolCalls.filter(Boolean).map((c) => `${c.function.name} ${c.function.arguments}`)].filter(Boolean).join(' ');
  const model = answer.modelRef || request.model;
  const prompt = answer.usage?.prompt_tokens ?? (await estimatePromptTokens(request.messages, model));
  writeCallUsage(deps, input, answer, reservation, prompt, Math.max(answer.usage?.completion_tokens ?? 0, await estimateTokens(generated, model)), true);
}

/** a call's record under its attribution, every field named in one order (one shape, where a copy of the attribution takes its callers') */
const usageRecord = (usage: UsageAttribution, model: string, agentId: string, promptTokens: number, completionTokens: number, estimated: boolean): UsageRecord => ({
  source: usage.source,
  model,
  keyName: usage.keyName,
  agentId,
  mappingId: usage.mappingId,
  promptTokens,
  completionTokens,
  estimated,
});

/** one model call's tokens: the provider's count, or herald's estimate (estimateUsage) when it gave none */
export function recordUsage(deps: TurnAccounts, input: TurnFields, answer: ModelAnswer, usage: ModelUsage, reservation: number | undefined): Promise<void> | undefined {
  return writeCallUsage(deps, input, answer, reservation, usage.prompt_tokens, usage.completion_tokens, answer.usage === undefined || answer.modelRef.startsWith(`${EMBEDDED_PROVIDER}/`));
}

/** a model call's tokens under the turn's key, agent and mapping: in place of its reservation when it had one */
function writeCallUsage(
  deps: TurnAccounts,
  input: TurnFields,
  answer: ModelAnswer,
  reservation: number | undefined,
  promptTokens: number,
  completionTokens: number,
  estimated: boolean,
): Promise<void> | undefined {
  if (!input.usage || !deps.usage) return undefined;
  const call = usageRecord(input.usage, answer.modelRef, input.agent.id, promptTokens, completionTokens, estimated);
  return reservation === undefined ? deps.usage.record(call) : deps.usage.settle(reservation, call);
}

/**
 * Reserves a model call's estimate (its prompt, and its max_tokens or
 * agents.defaults.budgetReserveTokens) against the budgets of its key and agent: 429 at once past
 * one. A heartbeat's calls are counted, never refused.
 */
export function reserveCall(deps: TurnAccounts, input: Pick<TurnFields, 'usage' | 'agent'>, request: Pick<ModelRequest, 'messages' | 'maxTokens'>, modelRef: string): Promise<number | undefined> | undefined {
  const holders = budgetHolders(deps, input);
  return holders && reserveFor(deps, holders, input, request, modelRef);
}

/** reserveCall for holders a caller has looked up already (budgetHolders) */
export function reserveFor(
  deps: TurnAccounts,
  holders: BudgetHolder[],
  input: Pick<TurnFields, 'usage' | 'agent'>,
  request: Pick<ModelRequest, 'messages' | 'maxTokens'>,
  modelRef: string,
): Promise<number | undefined> {
  return deps.budgets!.reserve(
    holders,
    usageRecord(input.usage!, modelRef, input.agent.id, promptWordCount(request.messages), request.maxTokens ?? deps.config.agents.defaults.budgetReserveTokens, true),
  );
}

/** the budgets a model call of the turn is reserved against; undefined when it has none (most turns), so a caller need not make its estimate's inputs */
export function budgetHolders(deps: TurnAccounts, input: Pick<TurnFields, 'usage' | 'agent'>): BudgetHolder[] | undefined {
  if (!deps.budgets || !deps.usage || !input.usage || input.usage.source === 'heartbeat') return undefined;
  const holders = deps.budgets.holdersOf(input.usage.keyName, input.agent.id);
  return holders.length ? holders : undefined;
}

export const addUsage = (a: ModelUsage | undefined, b: ModelUsage): ModelUsage =>
  a ? { prompt_tokens: a.prompt_tokens + b.prompt_tokens, completion_tokens: a.completion_tokens + b.completion_tokens, total_tokens: a.total_tokens + b.total_tokens } : b;

/** a call's tokens when its provider counted none: the model's tokenizer over the prompt and the answer (its text and tool calls) */
export async function estimateUsage(request: ModelRequest, answer: Pick<ModelAnswer, 'text' | 'toolCalls' | 'modelRef'>): Promise<ModelUsage> {
  const model = answer.modelRef || request.model;
  const calls = answer.toolCalls.filter(Boolean).map((c) => `${c.function.name} ${c.function.arguments}`);
  const prompt_tokens = await estimatePromptTokens(request.messages, model);
  const completion_tokens = await estimateTokens([answer.text, ...calls].filter(Boolean).join(' '), model);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
