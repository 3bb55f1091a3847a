/**
 * What herald's own token estimates (a stream the client dropped, a provider without usage;
 * src/models/token-estimate.ts) cost the event loop: herald counts in a thread of its own
 * (src/models/token-count-thread.ts), against the same count made on the event loop, as herald
 * made it before (gpt-tokenizer imported at the first estimate, counted in place). Each side runs
 * in a fresh process of its own (`node --import tsx bench/token-estimate.bench.ts`), so each first
 * estimate loads the tokenizer: printed are that estimate's time, the event loop's longest stall
 * and the main thread's busy time meanwhile, then the same for `ESTIMATES` (default 500) estimates
 * of a 2 KB prompt made one after another. No test asserts these figures.
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatTable } from './table.js';

const ESTIMATES = Number(process.env.ESTIMATES ?? 500);
const PROMPT = Array.from({ length: 40 }, (_, i) => `Deploy ${i} of the billing service finished; {"check":"health","status":"passed","at":${1_700_000_000 + i}}`).join('\n');

type Estimate = (text: string) => Promise<number>;

interface SideFigures {
  firstMs: number;
  firstStallMs: number;
  firstBusyMs: number;
  p50Us: number;
  busyUsPerEstimate: number;
}

/** the longest gap between the ticks of a 1 ms interval, less its 1 ms: how long the loop was held */
function watchStalls(): () => number {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  return () => {
    clearInterval(tick);
    return Math.max(0, longest);
  };
}

async function measure(estimate: Estimate): Promise<SideFigures> {
  const stalls = watchStalls();
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  await estimate(PROMPT);
  const firstMs = performance.now() - started;
  const firstBusyMs = performance.eventLoopUtilization(elu).active;
  const firstStallMs = stalls();
  const times: number[] = [];
  const busy = performance.eventLoopUtilization();
  for (let i = 0; i < ESTIMATES; i++) {
    const from = performance.now();
    await estimate(`${PROMPT} ${i}`);
    times.push((performance.now() - from) * 1000);
  }
  const busyUsPerEstimate = (performance.eventLoopUtilization(busy).active * 1000) / ESTIMATES;
  times.sort((a, b) => a - b);
  return { firstMs, firstStallMs, firstBusyMs, p50Us: times[Math.floor(times.length / 2)]!, busyUsPerEstimate };
}

/** one side, in this (fresh) process */
async function side(name: string): Promise<SideFigures> {
  if (name === 'event loop') {
    let counting: Promise<(text: string) => number> | undefined;
    return measure(async (text) => (await (counting ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => m.countTokens)))(text));
  }
  const { estimateTokens } = await import('../src/models/token-estimate.js');
  return measure((text) => estimateTokens(text, 'gpt-4o'));
}

const SIDES = ['event loop', 'a thread of its own (herald)'];
const mode = process.argv[2];
if (mode !== undefined) {
  console.log(JSON.stringify(await side(mode)));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const rows = SIDES.map((name) => {
  const figures = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', self, name], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as SideFigures;
  return [name, figures.firstMs.toFixed(0), figures.firstStallMs.toFixed(1), figures.firstBusyMs.toFixed(0), figures.p50Us.toFixed(0), figures.busyUsPerEstimate.toFixed(0)];
});
console.log(`token estimates, o200k_base, a ${PROMPT.length}-character prompt; ${ESTIMATES} estimates after the first, each side in a fresh process`);
console.log(
  formatTable(['counted on', 'first estimate ms', "event loop's longest stall ms", 'main thread busy ms', 'then p50 µs', 'main thread busy µs/estimate'], rows),
);
