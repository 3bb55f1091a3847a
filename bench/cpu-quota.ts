import fs from 'node:fs';
import path from 'node:path';

/**
 * A server process held to a share of the CPUs through a cgroup CPU quota, as if it ran on a host
 * of its own with that many cores. On one machine, two replicas, PostgreSQL and the load generators
 * share the same cores, so a second replica takes CPU from the first and from PostgreSQL; holding
 * each replica to its own quota, with PostgreSQL and the load given what is left, is how "two hosts
 * on one database" can be read here: two replicas ought then to accept about twice what one does.
 *
 * cgroup v1 (`cpu/cpu.cfs_quota_us`) and v2 (`cpu.max`) are both understood; either needs root.
 */
export class CpuQuota {
  private constructor(private readonly dir: string) {}

  /** a cgroup of its own holding its processes to `cores` (0.25: a quarter of one core's time) */
  static create(name: string, cores: number): CpuQuota {
    if (!(cores > 0)) throw new Error(`BENCH_REPLICA_CPU must be a positive number of cores, got ${cores}`);
    const v1 = '/sys/fs/cgroup/cpu';
    const v2 = '/sys/fs/cgroup';
    const periodUs = 100_000;
    const quotaUs = Math.round(cores * periodUs);
    if (fs.existsSync(path.join(v1, 'cpu.cfs_quota_us'))) {
      const dir = path.join(v1, name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(periodUs));
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
      return new CpuQuota(dir);
    }
    if (fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) {
      const dir = path.join(v2, name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'cpu.max'), `${quotaUs} ${periodUs}`);
      return new CpuQuota(dir);
    }
    throw new Error('BENCH_REPLICA_CPU needs a cgroup CPU controller (v1 /sys/fs/cgroup/cpu or v2 with "cpu" in cgroup.controllers) and root');
  }

  /** whether quotas can be made here (a cgroup CPU controller, and root) */
  static available(): boolean {
    try {
      CpuQuota.create(`herald-bench-probe-${process.pid}`, 1).remove();
      return true;
    } catch {
      return false;
    }
  }

  /** moves a process, all its threads with it (and those it starts later), into the quota */
  add(pid: number): void {
    fs.writeFileSync(path.join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** removes the cgroup once its processes have exited (they leave it as they exit) */
  remove(): void {
    try {
      fs.rmdirSync(this.dir);
    } catch {
      // a process still in it (a server that would not stop): left for the machine to reap
    }
  }
}
