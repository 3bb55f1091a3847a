import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { formatTable } from './table.js';

/**
 * Where each server's CPU went during a measurement, by the machine's profiler (Linux `perf`):
 * every sample is counted to its process and to the code it was in, the JIT's code (JavaScript),
 * node's binary (V8's runtime, built-ins and garbage collector, node's C++), SQLite (inside
 * better-sqlite3), the kernel or the C libraries. Unlike `--cpu-prof` it adds nothing to the
 * servers' own work (V8's profiler slows the server with more functions more, so it tilts the
 * comparison it profiles), and it sees what V8's profiler folds into the JavaScript frame that
 * called it (native calls, the collector's threads).
 */

/** one measurement of one server: its process and when the CPU the bench counts was spent (process.hrtime, CLOCK_MONOTONIC) */
export interface PerfWindow {
  endpoint: string;
  server: string;
  pid: number;
  fromNs: bigint;
  toNs: bigint;
  /** the CPU the bench measured per request over the window: the samples' shares divide it */
  cpuMsPerRequest: number;
}

/** where a sample's code lives, by the file perf names for it */
const PLACES = ['JavaScript', 'V8 and node', 'SQLite', 'kernel', 'C libraries', 'other'] as const;
type Place = (typeof PLACES)[number];

function placeOf(dso: string): Place {
  // code perf cannot name a file for is the JIT's (V8 writes no perf map unless asked)
  if (/perf-\d+\.map|\[JIT\]|\/\/anon|\[unknown\]/.test(dso)) return 'JavaScript';
  if (dso === process.execPath || /\/node$/.test(dso)) return 'V8 and node';
  if (dso.includes('better_sqlite3')) return 'SQLite';
  if (dso.includes('kernel')) return 'kernel';
  if (/\/lib(c|m|stdc\+\+|gcc_s)[.-]|ld-linux/.test(dso)) return 'C libraries';
  return 'other';
}

/** `perf record` of the given processes (all their threads), its clock the one process.hrtime reads */
export class PerfRecording {
  private constructor(
    private readonly file: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<number | null>,
  ) {}

  static async start(file: string, pids: number[]): Promise<PerfRecording> {
    const found = spawnSync('perf', ['--version'], { encoding: 'utf8' });
    if (found.error || found.status !== 0) throw new Error('BENCH_PERF needs Linux perf on the PATH (Debian: apt-get install linux-perf)');
    const child = spawn('perf', ['record', '-F', '499', '-k', 'CLOCK_MONOTONIC', '-o', file, '-p', pids.join(',')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // perf reports a refusal (perf_event_paranoid, a missing process) by exiting at once
    const early = await Promise.race([exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 500))]);
    if (early !== 'running') throw new Error(`perf record exited with ${early}: ${errors.trim()}`);
    return new PerfRecording(file, child, exited);
  }

  /** ends the recording (perf writes its file on SIGINT) */
  async stop(): Promise<void> {
    this.child.kill('SIGINT');
    await this.exited;
  }

  /** each window's CPU per request split by where it ran, in µs */
  split(windows: PerfWindow[]): { window: PerfWindow; samples: number; us: Record<Place, number>; offMainUs: number }[] {
    const script = spawnSync('perf', ['script', '-i', this.file, '-F', 'pid,tid,time,ip,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.trim()}`);
    const counts = windows.map(() => ({ all: 0, offMain: 0, by: Object.fromEntries(PLACES.map((p) => [p, 0])) as Record<Place, number> }));
    const byPid = new Map<number, number[]>();
    windows.forEach((w, i) => byPid.set(w.pid, [...(byPid.get(w.pid) ?? []), i]));
    // `  9350/9353  1292.123456:  7f3a1c2b (/usr/bin/node)`: process/thread, time, address, file
    const sample = /^\s*(\d+)\/(\d+)\s+(\d+)\.(\d+):\s+\S+\s+\((.*)\)\s*$/;
    for (const line of script.stdout.split('\n')) {
      const m = sample.exec(line);
      if (!m) continue;
      const candidates = byPid.get(Number(m[1]));
      if (!candidates) continue;
      const ns = BigInt(m[3]!) * 1_000_000_000n + BigInt(m[4]!.padEnd(9, '0'));
      const i = candidates.find((c) => ns >= windows[c]!.fromNs && ns <= windows[c]!.toNs);
      if (i === undefined) continue;
      counts[i]!.all++;
      if (m[2] !== m[1]) counts[i]!.offMain++;
      counts[i]!.by[placeOf(m[5]!)]++;
    }
    return windows.map((window, i) => {
      const { all, offMain, by } = counts[i]!;
      const share = (n: number) => (all ? (window.cpuMsPerRequest * 1000 * n) / all : 0);
      const us = Object.fromEntries(PLACES.map((p) => [p, share(by[p])])) as Record<Place, number>;
      return { window, samples: all, us, offMainUs: share(offMain) };
    });
  }
}

/** the split as a table, one row per measurement */
export function renderPerfSplit(split: ReturnType<PerfRecording['split']>): string {
  return formatTable(
    ['endpoint', 'server', 'samples', 'CPU µs/req', ...PLACES, 'off the main thread'],
    split.map(({ window, samples, us, offMainUs }) => [
      `POST ${window.endpoint}`, window.server, String(samples), (window.cpuMsPerRequest * 1000).toFixed(0), ...PLACES.map((p) => us[p].toFixed(1)), offMainUs.toFixed(1),
    ]),
  );
}
