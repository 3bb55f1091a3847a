import type { ModelChoice } from '../config/schema.js';

/**
 * The models a turn tries, in order. With no override, `agents.defaults.model` as configured
 * (primary, then fallbacks). An override (the agent's own model, a hook's or gmail's `model`)
 * comes first; when fallbacks are configured, they follow, then the primary: OpenClaw's order
 * ("falls back to agents.defaults.model.fallbacks, then primary"). Without configured fallbacks
 * an override stands alone: a run that asked for one model is not answered by another unasked.
 * A ref listed twice is tried once.
 */
export function modelChain(choice: ModelChoice, override?: string): string[] {
  // every run asks for its chain (twice): the chains of a config are made once, frozen since they are shared
  let chains = CHAINS.get(choice);
  if (!chains) CHAINS.set(choice, (chains = new Map()));
  let chain = chains.get(override);
  if (!chain) {
    const refs =
      override === undefined ? [choice.primary, ...choice.fallbacks] : choice.fallbacks.length ? [override, ...choice.fallbacks, choice.primary] : [override];
    chain = Object.freeze([...new Set(refs)]) as string[];
    // overrides come from requests (a hook's `model`, checked against the allowlist): a bounded memory
    if (chains.size < MAX_CHAINS) chains.set(override, chain);
  }
  return chain;
}

const CHAINS = new WeakMap<ModelChoice, Map<string | undefined, string[]>>();
const MAX_CHAINS = 256;
