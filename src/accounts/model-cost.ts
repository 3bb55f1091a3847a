import type { HeraldConfig } from '../config/schema.js';

/** a model call's cost by `models.prices` (per million tokens, under the canonical model ref); 0 for a model without a price */
export function modelCost(prices: HeraldConfig['models']['prices'], model: string, promptTokens: number, completionTokens: number): number {
  const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
  return price ? (promptTokens * price.input + completionTokens * price.output) / 1_000_000 : 0;
}
