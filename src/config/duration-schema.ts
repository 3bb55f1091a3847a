import { z } from 'zod';

/** a duration as the config writes it: `30s`, `30m`, `2h`, `7d`, `250ms`, or `0` for off (runtime/duration.ts reads it) */
export const duration = z.string().regex(/^(0|\d+(\.\d+)?(ms|s|m|h|d))$/, 'a duration like 30s, 30m, 2h, or 0 for off');

/** a duration that cannot be off */
export const positiveDuration = z
  .string()
  .regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/, 'a duration like 30s, 15m, 6h')
  .refine((text) => !/^0+(\.0+)?[a-z]+$/.test(text), 'a duration longer than 0');
