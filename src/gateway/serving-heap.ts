import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, once herald
 * serves: as much again (or V8's minimum step, if more). Left to itself V8 allows up to 4× when its
 * collections are quick next to the allocation rate, as they are in a busy gateway (most of what a
 * request allocates dies young, and what lives on is small): the old generation then grows to
 * several times its live set, in garbage, before each full collection, and the pages it took stay
 * resident. A tighter bound holds the peak lower still, but its more frequent full collections
 * cost every request CPU (the settings compared: docs/performance.md, "Peak RSS under load").
 */
export const OLD_GENERATION_GROWTH_PERCENT = 100;

/**
 * node's flags by which an operator sets the optimising compiler (TurboFan) themselves: bin/herald.mjs
 * then leaves it as given, and so does serving (the same test there).
 */
const OPERATOR_COMPILER_FLAG = /--(no[-_])?(opt|turbofan|jitless|max[-_]opt|always[-_](opt|turbofan))\b/;

/**
 * Shapes V8 for serving, once herald listens.
 *
 * bin/herald.mjs stops V8 from growing the young generation while herald starts: loading modules
 * and compiling mappings allocate in bursts that would double it up to 2 × 16 MB and keep it that
 * size, idle, for the life of the process (~15 MB of RSS for nothing). From here V8's default
 * growth (×2 per busy scavenge) comes back, so a loaded gateway still gets a young generation
 * sized for its traffic (a smaller one promotes more and scavenges more often, for more CPU).
 *
 * bin/herald.mjs also holds V8's optimising compiler off while herald starts (start-up code runs
 * once; optimising what gets warm there cost the start CPU on compiler threads): back on from here,
 * where the request path's code is what gets warm. An operator's own compiler flags are left alone.
 *
 * The old generation's growth is bounded from here too, not during start-up, which keeps its
 * collections as V8 schedules them. An operator's own `--heap-growing-percent` (node's flags or
 * NODE_OPTIONS) is left as given.
 */
export function shapeHeapForServing(): void {
  for (const flag of servingHeapFlags([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) v8.setFlagsFromString(flag);
}

/** The V8 flags `shapeHeapForServing` sets, given the flags node was started with */
export function servingHeapFlags(nodeFlags: string): string[] {
  const flags = ['--semi-space-growth-factor=2'];
  if (!OPERATOR_COMPILER_FLAG.test(nodeFlags)) flags.push('--opt');
  if (!/--heap[-_]growing[-_]percent\b/.test(nodeFlags)) flags.push(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  return flags;
}
