import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Resident memory and CPU time of another process: /proc on Linux (VmRSS, VmHWM, utime+stime),
 * `ps` elsewhere.
 */
const onLinux = fs.existsSync('/proc/self/status');

/** current resident set size in bytes */
export function residentBytes(pid: number): number {
  if (onLinux) return statusKb(pid, 'VmRSS') * 1024;
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) * 1024;
}

function statusKb(pid: number, field: string): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * how many times a process's main thread gave up the CPU of its own accord: each sleep until a
 * timer or an event woke it (its voluntary context switches; Linux only)
 */
export function mainThreadWakeups(pid: number): number {
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))![1]);
}

/** how many threads a process runs now (Linux only) */
export function threadCount(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/task`).length;
}

/**
 * Tracks the peak resident memory of a process during one phase. On Linux the kernel's own
 * high-water mark (VmHWM) is reset at the start (clear_refs 5) so nothing between samples is
 * missed; sampling every `everyMs` covers the rest.
 */
export function trackPeakMemory(pid: number, everyMs = 100): { stop(): number } {
  let hwmReset = false;
  if (onLinux) {
    try {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      hwmReset = true;
    } catch {
      // not permitted here: sampling alone has to do
    }
  }
  let peak = residentBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, residentBytes(pid));
    } catch {
      // the process is gone; keep what was seen
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, residentBytes(pid));
        if (hwmReset) peak = Math.max(peak, statusKb(pid, 'VmHWM') * 1024);
      } catch {
        // gone
      }
      return peak;
    },
  };
}

/** the bytes a process has had written to storage (/proc's write_bytes: a database's WAL frames and checkpointed pages, not its sockets), or NaN off Linux */
export function storageBytes(pid: number): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
  } catch {
    return NaN;
  }
}

/** CPU time used so far by a process, in milliseconds (user + system) */
export function cpuMillis(pid: number): number {
  if (onLinux) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which is in parentheses and may contain spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on every Linux Node supports
  }
  const time = execFileSync('ps', ['-o', 'time=', '-p', String(pid)]).toString().trim();
  const parts = time.split(/[-:]/).map(Number);
  return parts.reduce((acc, n) => acc * 60 + n, 0) * 1000;
}

/**
 * Waits until a process is (nearly) idle: less than `busyPercent` of one core over a window.
 * herald keeps working after a load phase (accepted runs, heartbeats); the next phase must not
 * compete with that leftover work. Resolves with how long it kept working: until the idle window began.
 */
export async function waitUntilIdle(pid: number, options: { windowMs?: number; busyPercent?: number; maxMs?: number } = {}): Promise<number> {
  const windowMs = options.windowMs ?? 500;
  const busyPercent = options.busyPercent ?? 5;
  const started = Date.now();
  for (;;) {
    const before = cpuMillis(pid);
    await new Promise((r) => setTimeout(r, windowMs));
    const used = cpuMillis(pid) - before;
    if ((used / windowMs) * 100 < busyPercent) return Math.max(0, Date.now() - started - windowMs);
    if (Date.now() - started > (options.maxMs ?? 120_000)) return Date.now() - started;
  }
}
