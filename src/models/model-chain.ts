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
  const refs =
    override === undefined ? [choice.primary, ...choice.fallbacks] : choice.fallbacks.length ? [override, ...choice.fallbacks, choice.primary] : [override];
  return [...new Set(refs)];
}
