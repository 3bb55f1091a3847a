import type { LoadResult } from '../load.js';
import { cpuMillis, waitUntilIdle } from '../process-stats.js';

/** a server of an A/B run: its name in errors, its process for the CPU */
export interface AbSide {
  name: string;
  pid: number;
}

/** one slice's CPU and the requests its load completed */
export interface SliceCount {
  cpuMs: number;
  requests: number;
}

/** the CPU and requests of all of `counts` */
export const summed = (counts: SliceCount[]): SliceCount => counts.reduce((sum, c) => ({ cpuMs: sum.cpuMs + c.cpuMs, requests: sum.requests + c.requests }), { cpuMs: 0, requests: 0 });

/** CPU ms per request over all of `counts` */
export function perRequest(counts: SliceCount[]): number {
  const { cpuMs, requests } = summed(counts);
  return cpuMs / requests;
}

/**
 * The A/B benches' measurement (chat-ab.ts, tool-calls-ab.ts, hooks-ab.ts beside it): every side loaded in
 * turn with each kind of request, `slices` times, each slice's CPU counted from its load's start
 * until its server is idle again (the work after the answers included). Each slice starts with the
 * other side: neither always meets the machine as the other left it. Returns each side's slices
 * by kind, in order, so a slice of one side pairs with the same slice of another.
 */
export async function alternatingSlices<S extends AbSide, K>(sides: S[], kinds: readonly K[], slices: number, load: (side: S, kind: K, slice: number) => Promise<LoadResult>): Promise<Map<S, Map<K, SliceCount[]>>> {
  const counts = new Map(sides.map((side) => [side, new Map(kinds.map((kind) => [kind, [] as SliceCount[]]))]));
  for (let i = 0; i < slices; i++) {
    for (const side of i % 2 ? [...sides].reverse() : sides) {
      for (const kind of kinds) {
        await waitUntilIdle(side.pid, { windowMs: 200 });
        const cpu = cpuMillis(side.pid);
        const { total, non2xx, errors } = await load(side, kind, i);
        if (non2xx || errors) throw new Error(`${side.name}: ${non2xx} non-2xx answers and ${errors} errors`);
        await waitUntilIdle(side.pid, { windowMs: 200 });
        counts.get(side)!.get(kind)!.push({ cpuMs: cpuMillis(side.pid) - cpu, requests: total });
      }
    }
  }
  return counts;
}
