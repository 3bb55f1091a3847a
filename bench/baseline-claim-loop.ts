/**
 * How a baseline executes its runs (bench/baseline-runs.ts on SQLite, bench/baseline-pg-runs.ts on
 * PostgreSQL): while fewer than `limit` runs are held, it claims up to the room left and executes
 * each claimed run without waiting for the others; a run that ends, or a `poke()` (a run was
 * accepted), claims again. A claim asked for while one is under way is made right after it.
 * `execute` may give back the run its completion claimed (herald claims the next runs in the
 * commit that completes the last ones): that run is executed next in the same place.
 */
export function claimLoop<R>(limit: number, claim: (room: number) => Promise<R[]>, execute: (run: R) => Promise<R | void>): { poke(): void } {
  let held = 0;
  let claiming = false;
  let again = false;

  const run = async (claimed: R) => {
    try {
      for (let next: R | void = claimed; next; ) next = await execute(next);
    } finally {
      held--;
      poke();
    }
  };

  const pump = async () => {
    claiming = true;
    try {
      do {
        again = false;
        const room = limit - held;
        if (room <= 0) return;
        const rows = await claim(room);
        held += rows.length;
        for (const claimed of rows) void run(claimed);
        if (rows.length === room) again = true;
      } while (again);
    } finally {
      claiming = false;
    }
  };

  function poke() {
    if (claiming) {
      again = true;
      return;
    }
    void pump().catch((error) => process.stderr.write(`baseline: claim failed: ${(error as Error).message}\n`));
  }

  return { poke };
}
