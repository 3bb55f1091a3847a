import pg from 'pg';
import { cpuMillis } from './process-stats.js';

/**
 * The CPU PostgreSQL spends for one server: the backends of its connections, found by their
 * application name in pg_stat_activity, their CPU read from /proc (the database runs on this
 * machine). The server's own process is half of what a request costs on PostgreSQL; the other
 * half is here. The shared background processes (WAL writer, checkpointer, autovacuum) are left
 * out: other work on the same server moves them.
 */
export class PgBackendCpu {
  private constructor(private readonly client: pg.Client) {}

  static async connect(url: string): Promise<PgBackendCpu> {
    const client = new pg.Client({ connectionString: url, application_name: 'bench:observer' });
    await client.connect();
    return new PgBackendCpu(client);
  }

  /** CPU ms so far of each backend whose application name is one of `names` */
  async snapshot(names: string[]): Promise<Map<number, number>> {
    const { rows } = await this.client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = ANY($1::text[])', [names]);
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        cpu.set(pid, cpuMillis(pid));
      } catch {
        // gone since the query
      }
    }
    return cpu;
  }

  /** CPU ms the backends used between `before` and now (a backend opened meanwhile: all of its CPU) */
  async since(before: Map<number, number>, names: string[]): Promise<number> {
    const now = await this.snapshot(names);
    let used = 0;
    for (const [pid, ms] of now) used += ms - (before.get(pid) ?? 0);
    return used;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
