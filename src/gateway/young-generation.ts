import v8 from 'node:v8';

/**
 * bin/herald.mjs stops V8 from growing the young generation while herald starts: loading modules
 * and compiling mappings allocate in bursts that would double it up to 2 × 16 MB and keep it that
 * size, idle, for the life of the process (~15 MB of RSS for nothing). Once herald is listening,
 * V8's default growth (×2 per busy scavenge) comes back, so a loaded gateway still gets a young
 * generation sized for its traffic.
 */
export function restoreYoungGenerationGrowth(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=2');
}
