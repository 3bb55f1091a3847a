/**
 * A claim's runs split into chains: each claimed ready run, then the runs of its session claimed
 * behind it (see RunsRepo.claim's `behind`). Two ready runs are never of one session (only a
 * session's oldest unfinished run is ready), so a chain ends where the session changes.
 */
export function sessionChains<T extends { sessionKey: string }>(runs: T[]): T[][] {
  const chains: T[][] = [];
  for (const run of runs) {
    const last = chains.at(-1);
    if (last && last[0]!.sessionKey === run.sessionKey) last.push(run);
    else chains.push([run]);
  }
  return chains;
}
