import { z } from 'zod';

/** a duration as the config writes it: `30s`, `30m`, `2h`, `7d`, `250ms`, or `0` for off (runtime/duration.ts reads it) */
export const duration = z.string().regex(/^(0|\d+(\.\d+)?(ms|s|m|h|d))$/, 'a duration like 30s, 30m, 2h, or 0 for off');

/** a duration that cannot be off */
export const positiveDuration = z
  .string()
  .regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/, 'a duration like 30s, 15m, 6h')
  .refine((text) => !/^0+(\.0+)?[a-z]+$/.test(text), 'a duration longer than 0');

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30m" -> 1800000; "0" -> 0 (off). The config schema has already checked the shape. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}
