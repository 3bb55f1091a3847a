import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// bench/run-turn.bench.ts imports a checkout's sources by path: a renamed module or a changed
// signature of the turn would break it silently between the rounds that run it
describe('the run-turn bench', () => {
  it("runs a checkout's turns and prints their CPU per turn", () => {
    const ran = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run-turn.bench.ts'], {
      env: { ...process.env, TURN_RUNS: '50', TURN_ROUNDS: '3' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^\S+\s+\|\s+\d+\.\d\d \|\s+\d+\.\d\d$/m);
  });
});
