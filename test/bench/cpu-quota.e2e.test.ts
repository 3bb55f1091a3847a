import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuQuota } from '../../bench/cpu-quota.js';
import { cpuMillis } from '../../bench/process-stats.js';

// bench/postgres.bench.ts reads "two replicas on one database" with each server held to a host's
// share of the CPUs (BENCH_REPLICA_CPU): the quota must hold the whole process, threads included.
const cgroupWritable = CpuQuota.available();

describe('CpuQuota', () => {
  it('refuses a share that is not a positive number of cores, naming the option', () => {
    expect(() => CpuQuota.create('herald-test-none', 0)).toThrow(/BENCH_REPLICA_CPU must be a positive number of cores, got 0/);
    expect(() => CpuQuota.create('herald-test-none', Number('half'))).toThrow(/got NaN/);
  });

  it.skipIf(!cgroupWritable)('holds a busy process, its threads included, to its share of one core', async () => {
    const quota = CpuQuota.create(`herald-test-${process.pid}`, 0.2);
    // two threads busy for 1.5 s: unheld, they would use up to two cores' time
    const child = spawn(process.execPath, ['-e', `
      const { Worker } = require('node:worker_threads');
      const spin = 'const end = Date.now() + 1500; while (Date.now() < end);';
      new Worker(spin, { eval: true });
      setTimeout(() => { eval(spin); }, 0);
    `], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      quota.add(child.pid!);
      expect(fs.readFileSync(`/proc/${child.pid}/cgroup`, 'utf8')).toContain(`herald-test-${process.pid}`);
      const startedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const used = cpuMillis(child.pid!);
      const wall = Date.now() - startedAt;
      // held to 0.2 of a core; the process's start before it was added is the margin
      expect(used).toBeLessThan(wall * 0.2 + 150);
    } finally {
      await exited;
      quota.remove();
    }
  });
});
