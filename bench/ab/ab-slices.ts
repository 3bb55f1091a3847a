import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { LoadResult } from '../load.js';
import { cpuMillis, waitUntilIdle } from '../process-stats.js';

/** a server of an A/B run: its name in errors, its process for the CPU */
export interface AbSide {
  name: string;
  pid: number;
}

/** one slice's CPU, the requests its load completed, and how long its server was busy with them */
export interface SliceCount {
  cpuMs: number;
  requests: number;
  /** from the load's start until the server's work after it ended (the runs its requests made executed) */
  busyMs: number;
}

/** the CPU, requests and busy time of all of `counts` */
export const summed = (counts: SliceCount[]): SliceCount =>
  counts.reduce((sum, c) => ({ cpuMs: sum.cpuMs + c.cpuMs, requests: sum.requests + c.requests, busyMs: sum.busyMs + c.busyMs }), { cpuMs: 0, requests: 0, busyMs: 0 });

/** CPU ms per request over all of `counts` */
export function perRequest(counts: SliceCount[]): number {
  const { cpuMs, requests } = summed(counts);
  return cpuMs / requests;
}

/** the processes `pid` started itself (its threads' children, /proc) */
function childrenOf(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}

/**
 * The sides on the machine's last CPU, this process (the load's driver, its load generators after
 * it) and the other processes it started (an upstream, a fake) on the rest, all their threads
 * (`taskset -a`): left to the scheduler, each side may meet its load and its upstream on CPUs
 * placed differently from the other side's, and that difference is measured as theirs
 * (bench/README.md has the A/A runs). Off with BENCH_PIN=0, or on one CPU; without `taskset`,
 * said and skipped.
 */
export function pinSides(sides: AbSide[]): void {
  const cpus = os.availableParallelism();
  if (cpus < 2 || process.env.BENCH_PIN === '0') return;
  const pin = (cpuList: string, pid: number) => execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
  const rest = cpus === 2 ? '0' : `0-${cpus - 2}`;
  try {
    pin(rest, process.pid);
    for (const child of childrenOf(process.pid)) if (!sides.some((side) => side.pid === child)) pin(rest, child);
    for (const side of sides) pin(String(cpus - 1), side.pid);
    console.log(`pinned: the sides on CPU ${cpus - 1}, the load and the rest on ${rest} (BENCH_PIN=0 leaves them to the scheduler)`);
  } catch (error) {
    console.log(`not pinned (taskset: ${(error as Error).message.split('\n')[0]}): the sides meet the machine as the scheduler places them`);
  }
}

/**
 * The A/B benches' measurement (the other files beside it): every side loaded in turn with each
 * kind of request, `slices` times, each slice's CPU counted from its load's start until its server
 * is idle again (the work after the answers included). Each slice starts with the next side (the
 * order rotates): none always meets the machine as the same other side left it. The sides share
 * one CPU, the load another (pinSides). Returns each side's slices by kind, in order, so a slice
 * of one side pairs with the same slice of another.
 */
export async function alternatingSlices<S extends AbSide, K>(sides: S[], kinds: readonly K[], slices: number, load: (side: S, kind: K, slice: number) => Promise<LoadResult>): Promise<Map<S, Map<K, SliceCount[]>>> {
  pinSides(sides);
  const counts = new Map(sides.map((side) => [side, new Map(kinds.map((kind) => [kind, [] as SliceCount[]]))]));
  for (let i = 0; i < slices; i++) {
    for (const side of sides.map((_, k) => sides[(i + k) % sides.length]!)) {
      for (const kind of kinds) {
        await waitUntilIdle(side.pid, { windowMs: 200 });
        const cpu = cpuMillis(side.pid);
        const started = Date.now();
        const { total, non2xx, errors } = await load(side, kind, i);
        if (non2xx || errors) throw new Error(`${side.name}: ${non2xx} non-2xx answers and ${errors} errors`);
        const loadMs = Date.now() - started;
        const drainMs = await waitUntilIdle(side.pid, { windowMs: 200 });
        counts.get(side)!.get(kind)!.push({ cpuMs: cpuMillis(side.pid) - cpu, requests: total, busyMs: loadMs + drainMs });
      }
    }
  }
  return counts;
}

/**
 * `a`'s CPU per request over `b`'s, over all slices and slice pair by slice pair (a slice of one
 * with the same slice of the other): the pairs' median and quartiles say how far the total holds
 */
export function cpuRatio(a: SliceCount[], b: SliceCount[]): { all: number; median: number; quartiles: [number, number] } {
  const ratios = a.map((c, i) => perRequest([c]) / perRequest([b[i]!])).sort((x, y) => x - y);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!;
  return { all: perRequest(a) / perRequest(b), median: at(0.5), quartiles: [at(0.25), at(0.75)] };
}
