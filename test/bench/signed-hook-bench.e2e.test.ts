import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// the signed row drives herald's github preset and the baseline's own receiver from a separate
// load process: a renamed preset mapping, a changed fixture or a refused signature would leave it
// printing errors or non-2xx counts instead of figures
describe('the signed preset webhook row of the webhook bench', () => {
  it('runs herald and the baseline on POST /hooks/github and prints their columns, every answer a 2xx', () => {
    const ran = spawnSync(process.execPath, ['--import', 'tsx', 'bench/hooks.bench.ts'], {
      env: { ...process.env, BENCH_ENDPOINTS: 'github', BENCH_DURATION: '1', BENCH_WARMUP: '0', BENCH_CONNECTIONS: '4', BENCH_BASELINE_SCHEMA: 'own' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const columns = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'CPU ms/req', 'of same-records baseline', 'CPU vs it', 'RSS vs it'];
    expect(ran.stdout.split('\n').find((line) => line.startsWith('endpoint'))?.split('|').map((c) => c.trim())).toEqual(columns);
    for (const server of ['baseline same-records', 'herald']) {
      expect(ran.stdout).toMatch(new RegExp(`^POST /hooks/github, a signed preset webhook \\| ${server} +\\| +\\d+ \\| +[\\d.]+ \\| +[\\d.]+ \\| +[\\d.]+ \\| +\\d+\\.\\d{3} \\|`, 'm'));
    }
    expect(ran.stdout).toMatch(/herald +\| +\d+ \|.*\| +\d+% \| +[\d.]+x \| +[\d.]+x$/m);
    expect(ran.stdout).not.toMatch(/non-2xx|errors,/);
  });
});
