import { z } from 'zod';

export const backoffKinds = ['exponential', 'linear'] as const;

/**
 * A delivery's retry schedule. Every field is optional: a channel's `retry` fills in what
 * `delivery` leaves at its defaults, an agent's what its channel leaves, a mapping's wins over all.
 */
export const retryPolicySchema = z
  .object({
    attempts: z.number().int().positive().optional().describe('Attempts of one delivery before it fails for good (default: delivery.maxAttempts, 20).'),
    backoff: z
      .enum(backoffKinds)
      .optional()
      .describe('How the wait grows: exponential (initialMs, 2x, 4x, ...) or linear (initialMs, 2x, 3x, ...); always capped at maxMs and jittered (half fixed, half random). Default exponential.'),
    initialMs: z.number().int().nonnegative().optional().describe('Wait before the first retry, in milliseconds (default: delivery.baseDelayMs, 2000).'),
    maxMs: z.number().int().positive().optional().describe("Longest computed wait between two attempts (default: delivery.maxDelayMs, 300000). A platform's own Retry-After is honoured whole, even when longer."),
    maxAgeMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Gives up on a delivery this long after it was queued (or retried by an operator), whatever attempts remain (default: no limit)."),
  })
  .strict();

export type RetryPolicyConfig = z.output<typeof retryPolicySchema>;

export const fallbackTargetSchema = z
  .object({
    channel: z.string().min(1).refine((c) => c !== 'last', 'a fallback names its channel (not last)').describe('A configured channel plugin id or alias (not `last`).'),
    to: z.string().min(1).optional().describe("Recipient on that channel; default: that channel's last recipient."),
  })
  .strict();

export const fallbackSchema = z
  .array(fallbackTargetSchema)
  .max(5)
  .describe(
    'Where the reply goes when its delivery fails for good (a permanent error, attempts or maxAgeMs used up): each target in turn, each a delivery of its own linked to the one it replaces (`fallbackOf`).',
  );

export type FallbackTarget = z.output<typeof fallbackTargetSchema>;
