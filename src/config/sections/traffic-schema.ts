import { z } from 'zod';
import { positiveDuration } from './duration-schema.js';

/**
 * How a mapping's traffic is governed (its agent runs; a wake is never held back). Each holds
 * across replicas and restarts: the store admits, defers and claims the runs.
 */
export const mappingTrafficFields = {
  concurrency: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("At most this many of the mapping's runs executing at once, across all replicas; the others wait in order (the run's record says waited: concurrency)."),
  rate: z
    .object({
      runs: z.number().int().positive().describe('How many runs the window admits.'),
      per: positiveDuration.describe('The window: a duration like 30s, 1m, 1h.'),
      overflow: z
        .enum(['wait', 'reject'])
        .default('wait')
        .describe('wait: a run beyond the rate is accepted (202) and starts when the window allows (waited: rate); reject: the request is refused with 429 {ok:false,error:"rate limited"} and Retry-After.'),
    })
    .strict()
    .optional()
    .describe("At most `runs` of the mapping's runs starting per window `per`, counted in the store (across replicas)."),
  coalesce: z
    .object({
      windowMs: z.number().int().positive().max(86_400_000).describe('How long the first event waits for others of its key, in milliseconds (at most a day).'),
      key: z
        .string()
        .min(1)
        .optional()
        .describe("The key events are grouped by (templated, like sessionKey); default the rendered sessionKey (the whole mapping when it has none)."),
      maxEvents: z
        .number()
        .int()
        .positive()
        .max(10_000)
        .default(50)
        .describe('Most events one coalesced run lists: the next event of its key starts a new run (and window), so a burst becomes several turns instead of one unbounded message.'),
      maxBytes: z
        .number()
        .int()
        .positive()
        .default(262_144)
        .describe('Most bytes (UTF-8) of one coalesced run\'s message: an event that would pass it starts a new run, so the turn\'s prompt stays within what its model takes. Each joining event is appended in the store, the events before it neither read nor rewritten.'),
    })
    .strict()
    .optional()
    .describe('Events of one key arriving within windowMs become one agent turn whose message lists them, numbered: the first creates the run (it starts when the window ends), later ones join it and get 202 with the same runId and coalesced: true.'),
};

export type MappingTraffic = {
  [K in keyof typeof mappingTrafficFields]?: z.output<(typeof mappingTrafficFields)[K]>;
};
