import type { ModelChoice } from '../config/schema.js';

/**
 * The models a turn tries, in order. With no override, `agents.defaults.model` as configured
 * (primary, then fallbacks). An override (the agent's own model, a hook's or gmail's `model`)
 * comes first, then the configured fallbacks, then the primary: OpenClaw's order ("falls back to
 * agents.defaults.model.fallbacks, then primary"). A ref listed twice is tried once.
 */
export function modelChain(choice: ModelChoice, override?: string): string[] {
  const refs = override === undefined ? [choice.primary, ...choice.fallbacks] : [override, ...choice.fallbacks, choice.primary];
  return [...new Set(refs)];
}
